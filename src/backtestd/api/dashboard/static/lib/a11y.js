// Accessibility glue for every view: each <label> is tied to the form control right after it
// (screen readers then announce the field's name), whatever view rendered it and whenever.
let counter = 0;
const CONTROLS = /^(INPUT|SELECT|TEXTAREA)$/;

function link(root) {
  root.querySelectorAll("label:not([for])").forEach((label) => {
    const control = label.nextElementSibling;
    if (!control || !CONTROLS.test(control.tagName)) return;
    if (!control.id) control.id = `field-${++counter}`;
    label.htmlFor = control.id;
  });
}

export function linkLabels() {
  new MutationObserver(() => link(document)).observe(document.documentElement, { childList: true, subtree: true });
  link(document);
}
