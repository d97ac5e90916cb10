// Lists the tools as soon as the manifest arrives, from the build's copy of their descriptors
// (made from the tools' catalog when the extension is built: py/pyodide_webmcp/calls/prelisted.py), while the
// interpreter starts.
// A call waits for Python, then Python serves it; past the default call budget it is refused,
// not run (BRIDGE_STARTING), and if Python never starts it is refused too (BRIDGE_UNAVAILABLE).
// Python takes these registrations over, or withdraws them when its tools differ. The site's own tools,
// which the site build lists in the manifest too (`siteTools`), are listed beside them: Python serves
// their calls once it has installed the site's wheels.

/**
 * Register the prelisted descriptors the settings allow (a tool behind an opt-in switch only when the
 * switch is on). Returns the handoff Python adopts ({digest, controllers, siteTools, serve, release}) and the host's
 * `failed()`, or null when the manifest has no prelisted descriptors. Python releases the waiting calls
 * (`release`) once it has taken the tools over.
 */
export function registerPrelisted(modelContext, manifest, settings) {
  const prelisted = manifest.prelisted;
  if (!prelisted) {
    return null;
  }
  const composite = (settings && settings.composite) || {};
  const served = new Map();
  let settle;
  const outcome = new Promise(resolve => (settle = resolve));
  const controllers = {};
  const siteTools = (manifest.siteTools && manifest.siteTools.tools) || [];
  // `hints` (every hint, MCP's too) is for the MCP server; the browser gets the descriptor, WebMCP's hints in it.
  for (const { setting, hints, ...descriptor } of [...prelisted.tools, ...siteTools]) {
    if (setting && composite[setting] !== true) {
      continue;
    }
    const execute = async (input, client) => {
      let timer;
      const budget = new Promise(resolve => (timer = setTimeout(() => resolve('starting'), prelisted.budgetMs)));
      const state = await Promise.race([outcome, budget]);
      clearTimeout(timer);
      const handler = served.get(descriptor.name);
      if (state === 'started' && handler) {
        return handler(input, client);
      }
      return state === 'failed' ? prelisted.unavailable : prelisted.starting;
    };
    const controller = new AbortController();
    const refused = error => {
      delete controllers[descriptor.name];
      console.warn(`WebMCP bridge: ${descriptor.name} could not be prelisted`, error);
    };
    controllers[descriptor.name] = controller;
    try {
      Promise.resolve(modelContext.registerTool({ ...descriptor, execute }, { signal: controller.signal })).catch(refused);
    } catch (error) {
      refused(error);
    }
  }
  return {
    handoff: {
      digest: prelisted.digest,
      controllers,
      siteTools,
      serve: (name, handler) => served.set(name, handler),
      release: () => settle('started')
    },
    failed: () => {
      settle('failed');
      Object.values(controllers).forEach(controller => controller.abort());
    }
  };
}
