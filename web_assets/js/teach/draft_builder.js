// A draft from a recording: generalize it (or pair it with a second recording), apply what
// the author chose for each parameter, and compile. Pure: it changes nothing. Used by the
// desktop shell's "draft" request and by the page's own understudy_draft_tool where it runs
// without the shell.
import { generalize, generalizePair, GeneralizeError } from './generalize.js';
import { compile } from './compile.js';

/**
 * buildDraft({ recording, pairWith, meta: { name, title, description, parameters } })
 *   -> { draft, definition, problems, warnings } or { error } (a plain sentence)
 * @param {object} request
 * @param {import('./generalize.js').Recording} request.recording
 * @param {import('./generalize.js').Recording | null} [request.pairWith]
 * @param {{ name?: string, title?: string, description?: string, parameters?: Record<string, Protocol.DraftParameter> }} request.meta
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
    if (!param) return { error: `The recording has nothing called ${name.slice(0, 40)} that could be asked. What could be asked: ${draft.params.map((p) => p.name).join(', ')}.` };
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
