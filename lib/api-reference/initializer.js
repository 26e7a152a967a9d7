// Starts Swagger UI on the API reference page (lib/api-reference/page.ts). Served by the service
// itself as /api-docs/assets/api-reference.js, so that the page's Content-Security-Policy can
// forbid inline scripts. Runs in the browser: plain JavaScript, no build step.
(async () => {
  const root = document.getElementById('swagger-ui');
  // Relative to the page, so that it works under an API Gateway stage (`/prod/api-docs`) as well
  // as at the root (`npm start`).
  const documentUrl = new URL('api-docs/v1/swagger.json', window.location.href);
  const response = await fetch(documentUrl);
  if (!response.ok) {
    root.textContent = `The OpenAPI document could not be loaded (${response.status}).`;
    return;
  }
  const spec = await response.json();
  // "Try it out" calls this deployment first: the page's own origin and stage, under which every
  // path of the document (`/api/v1/...`) is served.
  const here = new URL('.', window.location.href).href.replace(/\/$/, '');
  spec.servers = [{ url: here, description: 'This deployment' }, ...(spec.servers ?? [])];
  window.ui = window.SwaggerUIBundle({
    spec,
    dom_id: '#swagger-ui',
    deepLinking: true,
    displayOperationId: true,
    // The default sends the document to validator.swagger.io: the page makes no request elsewhere.
    validatorUrl: null,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
})();
