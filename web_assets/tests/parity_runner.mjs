// Reads a corpus (JSON on stdin) and prints the page's verdicts on it, for
// tests/test_rule_parity.py, which requires the shell's verdicts to be the same.
import { lintSchema, TOOL_NAME, PARAM_NAME, BUDGET, computedAnnotations } from '../js/teach/compile.js';
import RULES from '../data/rules.json' with { type: 'json' };

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const corpus = JSON.parse(Buffer.concat(chunks).toString('utf8'));
process.stdout.write(JSON.stringify({
  schemas: corpus.schemas.map((s) => lintSchema(s)),
  toolNames: corpus.names.map((n) => TOOL_NAME.test(n) && !n.startsWith(RULES.reservedPrefix)),
  paramNames: corpus.names.map((n) => PARAM_NAME.test(n)),
  budgets: BUDGET,
  annotations: corpus.stepLists.map((steps) => computedAnnotations(steps)),
}));
