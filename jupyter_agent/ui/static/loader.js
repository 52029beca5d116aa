// jupyter-agent widget loader: the widget's code (~430 KB with its Markdown renderer) is sent
// once per page, not with every cell. The first widget of a kernel carries it inline; later
// widgets find the module kept on the page, or ask the kernel for it ({type: "code"}) when the
// page was reloaded or another front end shows them. A late start loses nothing: the view
// asks for the compact state ("ready") once it renders.
const KEY = "__jupyterAgentWidget_%(hash)s";
const INLINE = %(inline)s;

function fromText(code) {
  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  return import(/* webpackIgnore: true */ /* @vite-ignore */ url).finally(() => URL.revokeObjectURL(url));
}

function fromKernel(model) {
  return new Promise((resolve, reject) => {
    const onMsg = (msg) => {
      if (!msg || msg.kind !== "code") return;
      model.off("msg:custom", onMsg);
      fromText(msg.esm).then(resolve, reject);
    };
    model.on("msg:custom", onMsg);
    model.send({ type: "code" });
  });
}

function load(model) {
  let pending = globalThis[KEY];
  if (!pending) {
    pending = INLINE ? fromText(INLINE) : fromKernel(model);
    globalThis[KEY] = pending;
    pending.catch(() => { if (globalThis[KEY] === pending) delete globalThis[KEY]; });
  }
  return pending;
}

export default {
  async render({ model, el }) {
    const mod = await load(model);
    return mod.default.render({ model, el });
  },
};
