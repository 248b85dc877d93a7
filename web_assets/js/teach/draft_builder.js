// A draft from a recording: generalize it (or pair it with a second recording), apply what
// the author chose for each parameter, and compile. Pure: it changes nothing. Used by the
// page's own understudy_draft_tool in a plain browser; the desktop shell drafts an agent's
// tool itself (understudy_desktop/library/draft_compiler.py), never asking the page, and
// tests/test_draft_parity.py holds the two to the same drafts.
import { generalize, generalizePair, GeneralizeError } from './generalize.js';
import { compile } from './compile.js';

/**
 * What the author chose for one recorded value: its description, whether whoever runs the
 * tool chooses it (bind), and the name it is asked by (rename).
 * @typedef {{ description?: string, bind?: boolean, rename?: string }} DraftParameter
 */
/**
 * buildDraft({ recording, pairWith, meta: { name, title, description, parameters } })
 *   -> { draft, definition, problems, warnings } or { error } (a plain sentence)
 * @param {object} request
 * @param {import('./generalize.js').Recording} request.recording
 * @param {import('./generalize.js').Recording | null} [request.pairWith]
 * @param {{ name?: string, title?: string, description?: string, parameters?: Record<string, DraftParameter> }} request.meta
 * @returns {{ error: string } | { draft: import('./generalize.js').Draft, definition: import('./compile.js').Definition, problems: string[], warnings: string[] }}
 */
export function buildDraft({ recording, pairWith = null, meta }) {
  let draft;
  try {
    draft = pairWith ? generalizePair(recording, pairWith) : generalize(recording);
  } catch (err) {
    if (err instanceof GeneralizeError) return { error: err.message };
    throw err;
  }
  for (const [name, spec] of Object.entries(meta.parameters ?? {})) {
    const param = draft.params.find((p) => p.name === name);
    // The name given is not said back: an agent's text never comes back in an error.
    if (!param) return { error: `The recording has no value by one of those names that could be asked. What could be asked: ${draft.params.map((p) => p.name).join(', ')}.` };
    if (typeof spec.description === 'string') param.description = spec.description;
    if (typeof spec.bind === 'boolean') param.bound = spec.bind;
    if (spec.rename) {
      for (const step of draft.steps) for (const a of Object.values(step.args)) if (a.from === 'param' && a.name === param.name) a.name = spec.rename;
      param.name = spec.rename;
    }
  }
  const { definition, problems } = compile(draft, { name: meta.name, title: meta.title ?? '', description: meta.description });
  return { draft, definition, problems, warnings: draft.warnings.map((w) => w.message) };
}
