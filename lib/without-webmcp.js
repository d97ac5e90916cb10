// In a browser without WebMCP no agent can connect, so nothing starts by itself: the status item offers the
// human's own controls (cell and notebook access, review comments, the Agent panel, Propose mode), which
// start the bridge's Python without any tool on a click, or at once when the settings ask for them
// (`controlsWithoutWebMCP`). A visitor who never clicks downloads nothing of the bridge's Python.

const OFFER = ' · click for the access and review controls (no agent can connect)';

/**
 * Offer the controls on the status item; `start()` starts them. Resolves once they are asked for (a click,
 * Enter or Space on the item, or the setting), having called `start()`.
 */
export function offerControls(item, status, settingsLoaded, start) {
  const node = item.node;
  const offer = async () => {
    const settings = await settingsLoaded;
    if (settings && settings.composite.controlsWithoutWebMCP === true) {
      return begin();
    }
    node.textContent = status + OFFER;
    node.title = node.textContent;
    node.classList.add('jp-webmcp-offer');
    node.setAttribute('role', 'button');
    node.tabIndex = 0;
    node.addEventListener('click', begin, { once: true });
    node.addEventListener('keydown', onKey);
  };
  const onKey = event => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      begin();
    }
  };
  let begun = false;
  const begin = () => {
    if (begun) {
      return;
    }
    begun = true;
    node.removeEventListener('click', begin);
    node.removeEventListener('keydown', onKey);
    node.classList.remove('jp-webmcp-offer');
    node.removeAttribute('role');
    node.removeAttribute('tabindex');
    start();
  };
  return offer();
}
