// Upstream workaround (jupyterlite-pyodide-kernel 0.8.x, coincident 1.2.3): when the page is
// cross-origin isolated, the kernel talks to its worker through coincident, which calls
// `Atomics.waitAsync(...).value.then(...)`. Native `Atomics.waitAsync` answers synchronously
// (`{async: false, value: 'not-equal'}`) when the worker has already replied, so a fast reply throws
// "A(...).value.then is not a function" and that execution never settles. Here the result always
// carries a promise. coincident reads `Atomics.waitAsync` when the kernel's chunk first loads (at the
// first kernel start), after this module runs. See docs/deploy.md, "Cross-origin isolation".
const nativeWaitAsync = Atomics.waitAsync;

if (typeof nativeWaitAsync === 'function' && !nativeWaitAsync.alwaysAsync) {
  const waitAsync = function waitAsync(...args) {
    const result = nativeWaitAsync.apply(Atomics, args);
    return result.async ? result : { async: true, value: Promise.resolve(result.value) };
  };
  waitAsync.alwaysAsync = true;
  Atomics.waitAsync = waitAsync;
}
