// Renders this deployment's OpenAPI document with Swagger UI's plain
// layout. The page names the document relative to itself, so it works
// behind any stage prefix or custom domain.
(function () {
  "use strict";
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-url"),
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    // Swagger UI would otherwise send the document to validator.swagger.io.
    validatorUrl: null,
  });
})();
