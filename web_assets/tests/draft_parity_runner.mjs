// Reads draft cases (JSON on stdin: each a recording, a recording to pair it with or null,
// and the author's choices) and prints what the page's draft builder makes of each, for
// tests/test_draft_parity.py, which requires the shell's compiler to make the same.
import { buildDraft } from '../js/teach/draft_builder.js';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const cases = JSON.parse(Buffer.concat(chunks).toString('utf8'));
process.stdout.write(JSON.stringify(cases.map(({ recording, pairWith, meta }) => {
  const built = buildDraft({ recording, pairWith, meta });
  return 'error' in built ? { error: built.error } : { definition: built.definition, problems: built.problems, warnings: built.warnings };
})));
