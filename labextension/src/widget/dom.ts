// The widget's element factory: attributes that are undefined, null or false are left out.
export type Attrs = Record<string, string | number | boolean | null | undefined>;

/** `h('div', {class: 'x', text: 'hi', hidden: true}, child…)`: `class` and `text` set the
 * class name and text; `true` gives an empty attribute. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: (Node | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = String(value);
    else if (key === 'text') node.textContent = String(value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}
