// The lab inside another page's frame (jupyterlite-sphinx, Jupyter Book, a page of your own). What Chromium
// 156 does, measured (docs/embedding.md): a frame may register tools only where the permissions policy allows
// the "tools" feature, which a cross-origin iframe gets from its allow="tools" attribute (a same-origin one
// has it unless the embedding page withholds it); the embedding page's own document.modelContext lists the
// tools of its same-origin frames, never those of a cross-origin one.

/** The origins of the pages this frame sits in, nearest first (empty at the top, or where the browser cannot tell). */
function ancestorOrigins() {
  return Array.from(window.location.ancestorOrigins || []);
}

/** Why this page may not register tools ([state, text] as the status says it), or null when it may. */
export function toolsRefusedByPolicy() {
  const policy = document.featurePolicy;
  if (!policy || !policy.features().includes('tools') || policy.allowsFeature('tools')) {
    return null;
  }
  if (window.top === window) {
    return ['unavailable', "WebMCP unavailable: this site's Permissions-Policy header does not allow tools"];
  }
  return [
    'unavailable',
    'WebMCP unavailable: the page embedding this lab does not allow tools in its frame (give its iframe allow="tools")'
  ];
}

/**
 * What the ready status adds in a frame of another origin: the tools are this frame's only. Empty at the top
 * and in a same-origin frame, whose embedding page lists them as its own.
 */
export function frameNote() {
  const other = ancestorOrigins().find(origin => origin !== window.location.origin);
  return other ? `, in a frame of ${other}: that page's own WebMCP does not list them` : '';
}
