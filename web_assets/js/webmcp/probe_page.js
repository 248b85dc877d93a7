// /probe.html: says whether this browser gives pages WebMCP, and how it behaves.
import { runConformance } from './conformance.js';

const summary = document.getElementById('probe-summary');
const out = document.getElementById('probe-report');
window.runConformance = runConformance;
if (!('modelContext' in document)) {
  summary.textContent = 'document.modelContext is missing: this browser does not offer WebMCP to pages.';
} else if (new URLSearchParams(location.search).has('run')) {
  runConformance().then((report) => {
    summary.textContent = 'document.modelContext is present. Conformance report:';
    out.textContent = JSON.stringify(report, null, 2);
  });
} else {
  summary.textContent = 'document.modelContext is present. Add ?run to this address to run the conformance checks.';
}
