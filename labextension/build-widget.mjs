// Bundle the cell widget (src/widget/, TypeScript, with its Markdown renderer) into one ES
// module for anywidget: jupyter_agent/ui/static/widget.js. Run by `npm run build:widget`;
// esbuild only strips the types: `tsc` (build:lib) checks them.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
await build({
  entryPoints: [here("src/widget/widget.ts")],
  outfile: here("../jupyter_agent/ui/static/widget.js"),
  bundle: true,
  format: "esm",
  minify: true,
  target: "es2020",
  legalComments: "eof",
  logLevel: "warning",
});
