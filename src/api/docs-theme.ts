// /docs is Swagger UI. Its stock colours put white text on light method badges and version stamps
// and light-green, light-blue and grey text on white, below WCAG AA (axe-core: serious). These rules keep
// its look and fix the contrast; test/api/docs-page.browser.test.ts holds it to 0 serious or critical
// findings. (The layout options that remove the unlabeled top bar are in app.ts.)
export const DOCS_THEME_CSS = `
.swagger-ui .opblock .opblock-summary-method { color: #000; text-shadow: none; }
.swagger-ui .info .title small, .swagger-ui .info .title small pre { color: #000; }
.swagger-ui .info .title small.version-stamp { background: #b4e05a; }
.swagger-ui .info .url, .swagger-ui .info a, .swagger-ui .info .link { color: #1a4f8f; }
.swagger-ui .btn.authorize { color: #17613f; border-color: #17613f; }
.swagger-ui .btn.authorize svg { fill: #17613f; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #4d4d4d; }
.swagger-ui .parameter__in { color: #555; }
/* The servers picker is a <select> inside an empty <label> (axe: critical). The document names one server,
   this deployment, so there is nothing to pick: it is not shown. */
.swagger-ui .servers-title, .swagger-ui .servers { display: none; }
/* Examples wrap instead of scrolling: a scrollable <pre> would need a tabindex Swagger UI does not give it. */
.swagger-ui .highlight-code > .microlight { overflow: visible; max-height: none; white-space: pre-wrap; word-break: break-word; }
`;

// Swagger UI renders a <select> to pick among a response's named examples (each error status has one
// per `error` value) with no accessible name (axe: critical); its visible title is a <small> that is not
// its label. This names each such select as it appears.
export const DOCS_THEME_JS = `
(function () {
  function name() {
    document.querySelectorAll('select.examples-select-element:not([aria-label])').forEach(function (select) {
      select.setAttribute('aria-label', 'Example');
    });
  }
  new MutationObserver(name).observe(document.documentElement, { childList: true, subtree: true });
  name();
})();
`;
