// /probe.html: says whether this browser gives pages WebMCP, and how it behaves.
// window.runConformance(options) runs js/webmcp/conformance.js and resolves to its report;
// tests/test_webmcp_conformance.py calls it in native Chromium and in the Qt shell.
import { runConformance } from './conformance.js';

// probe.html has both; a page without them is not the probe, and fails loudly.
const summary = /** @type {HTMLElement} */ (document.getElementById('probe-summary'));
const out = /** @type {HTMLElement} */ (document.getElementById('probe-report'));
window.runConformance = runConformance;
if (!('modelContext' in document)) {
  summary.textContent = 'document.modelContext is missing: this browser does not offer WebMCP to pages.';
} else if (new URLSearchParams(location.search).has('run')) {
  summary.textContent = 'document.modelContext is present. Running the conformance cases…';
  runConformance().then((report) => {
    summary.textContent = `document.modelContext is present. Conformance report (${report.count} cases):`;
    out.textContent = JSON.stringify(report, null, 2);
  });
} else {
  summary.textContent = 'document.modelContext is present. Add ?run to this address to run the conformance cases.';
}
