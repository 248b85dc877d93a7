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

// A filter's fields as nouns, for "matching the words and status you choose".
/** @type {Record<string, string>} */
const FILTER_NOUNS = { text: 'words', status: 'status', priority: 'priority', assignee: 'assignee', tag: 'tag' };

/** @param {StepWords} step */
function filterSentence(step) {
  /** @type {string[]} */
  const parts = [];
  const args = step.args ?? {};
  // Two or more values asked each time read as one phrase, not one "the … you choose" each.
  const asked = Object.keys(FILTER_NOUNS).filter((field) => args[field]?.from === 'param');
  const grouped = asked.length > 1;
  /** @param {string} field @param {(words: string) => string} how */
  const pick = (field, how) => {
    const arg = args[field];
    if (!arg || (arg.from === 'const' && (arg.value === '' || arg.value === undefined))) return;
    if (!(grouped && arg.from === 'param')) parts.push(how(argWords('filter_tickets', field, arg)));
  };
  pick('text', (w) => `mentioning ${w}`);
  pick('status', (w) => `with status ${w}`);
  pick('priority', (w) => `with priority ${w}`);
  pick('assignee', (w) => `assigned to ${w}`);
  pick('tag', (w) => `tagged ${w}`);
  if (grouped) parts.push(`matching the ${listWords(asked.map((field) => FILTER_NOUNS[field]))} you choose`);
  return parts.length ? `Find the tickets ${parts.join(', ')}` : 'Look at every ticket';
}

/**
 * "a", "a and b", "a, b and c".
 * @param {string[]} items
 */
export function listWords(items) {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * One step of a tool ({command, args}) as a sentence. `again`: it works on the ticket (or the
 * matching tickets) the sentence before it named, so it says "it" or "them" ("Set its
 * priority to High") where the catalogue has such a sentence.
 * @param {StepWords} step
 * @param {boolean} [again]
 * @returns {string}
 */
export function stepSentence(step, again = false) {
  const command = COMMANDS[step.command];
  if (!command) return 'A step this console no longer has';
  if (step.command === 'filter_tickets') return filterSentence(step);
  return ((again && command.sayAgain) || command.say).replace(/\{(\w+)\}/g, (_m, field) => argWords(step.command, field, step.args?.[field]));
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
 * What a command does, in the words a tool's suggested title is made of ("tag the matches");
 * empty for a command no title mentions.
 * @param {string} command
 */
export function doingWords(command) {
  return COMMANDS[command]?.doing ?? '';
}

/**
 * Whether a command changes every ticket the search matched.
 * @param {string} command
 */
export function isSetBased(command) {
  return COMMANDS[command]?.setBased === true;
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
