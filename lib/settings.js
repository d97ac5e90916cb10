// The bridge's settings in JupyterLab's settings registry: the user's choices (Settings Editor) over the
// site's defaults (overrides.json), under the values a site fixes in jupyter-lite.json
// (litePluginSettings), which the Settings Editor shows read-only and no user can change.
import { PageConfig } from '@jupyterlab/coreutils';

export const SETTINGS_ID = 'jupyterlite-pyodide-webmcp:bridge';

function fixedBySite() {
  const all = JSON.parse(PageConfig.getOption('litePluginSettings') || '{}');
  return all[SETTINGS_ID] || {};
}

// Registered whatever the site fixes: a schema with jupyter.lab.transform loads only once it has one.
function fixSiteValues(registry, fixed) {
  registry.transform(SETTINGS_ID, {
    fetch: plugin => {
      const properties = plugin.schema.properties || {};
      for (const [key, value] of Object.entries(fixed)) {
        const property = properties[key];
        if (property && !property.readOnly) {
          const description = `${property.description || ''} Fixed by this site.`.trim();
          properties[key] = { ...property, default: value, readOnly: true, description };
        }
      }
      return plugin;
    },
    compose: plugin => {
      plugin.data.composite = { ...plugin.data.composite, ...fixed };
      return plugin;
    }
  });
}

/** The settings, or null without a settings registry (or when they cannot be read: defaults apply). */
export async function loadSettings(registry) {
  if (!registry) {
    return null;
  }
  fixSiteValues(registry, fixedBySite());
  try {
    return await registry.load(SETTINGS_ID);
  } catch (error) {
    console.warn('WebMCP bridge: settings could not be read; defaults apply', error);
    return null;
  }
}

/** Resolves once the settings let the bridge serve tools. */
export function untilEnabled(settings) {
  return new Promise(resolve => {
    const check = () => {
      if (settings.composite.enabled !== false) {
        settings.changed.disconnect(check);
        resolve();
      }
    };
    settings.changed.connect(check);
    check();
  });
}
