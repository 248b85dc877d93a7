// Reads repair cases (JSON on stdin: each a tool's definition, the step to repair, 0-based,
// and the steps the person recorded while re-doing it) and prints what the page's repair
// makes of each, for tests/test_repair_parity.py, which requires the shell's to match.
import { repairDefinition, RepairError } from '../js/teach/repair.js';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const cases = JSON.parse(Buffer.concat(chunks).toString('utf8'));
process.stdout.write(JSON.stringify(cases.map(({ definition, step, steps }) => {
  try {
    return { definition: repairDefinition(definition, step, steps) };
  } catch (err) {
    if (err instanceof RepairError) return { error: err.message };
    throw err;
  }
})));
