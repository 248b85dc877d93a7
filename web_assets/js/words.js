// Steps and values in a person's words: "Assign the ticket you choose to Priya Raman", never
// a command id, a field name or JSON. The sentences and the words for each field live in
// data/catalogue.json, which the desktop shell words its approval dialog from as well
// (understudy_desktop/approval/wording.py).
import CATALOGUE_JSON from '../data/catalogue.json' with { type: 'json' };

/**
 * @typedef {import('./catalogue.js').CatalogueData} CatalogueData
 * @typedef {import('./catalogue.js').CommandInfo} CommandInfo
 * @typedef {Required<import('./catalogue.js').FieldWords>} Words
 * @typedef {{ kind?: string, name?: string } | null | undefined} NamedRef
 * @typedef {{ from: string, name?: string, value?: unknown, ref?: NamedRef }} ArgWords
 * @typedef {{ command: string, args?: Record<string, ArgWords> }} StepWords
 */

// The file in the shape the console reads it (js/catalogue.js says why the cast).
const DATA = /** @type {CatalogueData} */ (/** @type {unknown} */ (CATALOGUE_JSON));
/** @type {Record<string, CommandInfo>} */
const COMMANDS = Object.fromEntries(DATA.commands.map((c) => [c.id, c]));
/** @type {Record<string, Record<string, string>>} */
const LABELS = {
  status: { new: 'New', open: 'Open', pending: 'Pending', solved: 'Solved', closed: 'Closed', '': 'any' },
  priority: { low: 'Low', normal: 'Normal', high: 'High', urgent: 'Urgent', '': 'any' },
};
const UNASSIGNED = '__unassigned__';

/**
 * @param {string} command
 * @param {string} field
 * @returns {Words}
 */
export function fieldWords(command, field) {
  const own = COMMANDS[command]?.fieldWords?.[field] ?? {};
  const shared = DATA.fieldWords[field] ?? {};
  return { label: field, asked: `the ${field} you choose`, same: `the same ${field}`, fixed: '{value}', describe: '', ...shared, ...own };
}

/**
 * A fixed value as a person reads it. `ref` (a person or a template) carries its name.
 * @param {string} command
 * @param {string} field
 * @param {unknown} value
 * @param {NamedRef} [ref]
 */
export function valueWords(command, field, value, ref = null) {
  const words = fieldWords(command, field);
  let shown;
  if (ref?.name) shown = ref.name;
  else if (value === null || value === UNASSIGNED) shown = 'nobody';
  else if (Array.isArray(value)) shown = value.length ? value.join(', ') : 'no tags';
  else if (LABELS[field]) shown = LABELS[field][String(value)] ?? String(value);
  else shown = String(value).length > 60 ? `${String(value).slice(0, 60)}…` : String(value);
  return words.fixed.replace('{value}', shown);
}

/**
 * @param {string} command
 * @param {string} field
 * @param {ArgWords | undefined} spec
 */
function argWords(command, field, spec) {
  if (!spec) return fieldWords(command, field).asked;
  if (spec.from === 'param') return fieldWords(command, field).asked;
  if (spec.from === 'step') return fieldWords(command, field).same;
  return valueWords(command, field, spec.value, spec.ref);
}

/** @param {StepWords} step */
function filterSentence(step) {
  /** @type {string[]} */
  const parts = [];
  const args = step.args ?? {};
  /** @param {string} field @param {(words: string) => string} how */
  const pick = (field, how) => { if (args[field] && !(args[field].from === 'const' && (args[field].value === '' || args[field].value === undefined))) parts.push(how(argWords('filter_tickets', field, args[field]))); };
  pick('text', (w) => `mentioning ${w}`);
  pick('status', (w) => `with status ${w}`);
  pick('priority', (w) => `with priority ${w}`);
  pick('assignee', (w) => `assigned to ${w}`);
  pick('tag', (w) => `tagged ${w}`);
  return parts.length ? `Find the tickets ${parts.join(', ')}` : 'Look at every ticket';
}

/**
 * One step of a tool ({command, args}) as a sentence.
 * @param {StepWords} step
 * @returns {string}
 */
export function stepSentence(step) {
  const command = COMMANDS[step.command];
  if (!command) return 'A step this console no longer has';
  if (step.command === 'filter_tickets') return filterSentence(step);
  return command.say.replace(/\{(\w+)\}/g, (_m, field) => argWords(step.command, field, step.args?.[field]));
}

/**
 * One recorded step ({command, payload, refs}) as a sentence, with the values as done.
 * @param {{ command: string, payload?: Record<string, unknown>, refs?: Record<string, NamedRef> }} step
 */
export function recordedSentence(step) {
  const args = Object.fromEntries(Object.entries(step.payload ?? {}).map(([f, v]) => [f, { from: 'const', value: v, ref: step.refs?.[f] ?? null }]));
  return stepSentence({ command: step.command, args });
}

/**
 * Whether a command's field names a person or a template (kept by name as well as by id).
 * @param {string} command
 * @param {string} field
 * @returns {'person' | 'template' | null}
 */
export function refKind(command, field) {
  return COMMANDS[command]?.refs?.[field] ?? null;
}

/**
 * A count of tickets in words: "1 ticket", "7,600 tickets".
 * @param {number} count
 */
export function ticketCount(count) {
  return `${count.toLocaleString('en')} ticket${count === 1 ? '' : 's'}`;
}
