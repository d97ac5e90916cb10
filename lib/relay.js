// The connector of @mcp-b/webmcp-local-relay, off unless the settings' `localRelay` is on. On, the lab opens a
// hidden frame of its own origin (static/bridge/relay/connector.html, from lib/relay-connector.*) that runs
// the relay's embed.js, shipped in the extension at build time (never from a CDN). The embed opens the relay's
// widget.html in a frame of its own, which connects to a relay on this computer (ws://127.0.0.1, the
// `localRelayPort` first, then the relay's own ports 9333-9348) and passes the lab's tool list and tool calls
// between the lab and the relay, which serves them to a desktop agent over MCP.
// See docs/connecting.md, "The lab in your own browser".
import { PageConfig } from '@jupyterlab/coreutils';

const FRAME = 'iframe[data-webmcp-relay-connector]';

function load(assetsUrl, port) {
  if (document.querySelector(FRAME)) {
    return;
  }
  const query = new URLSearchParams({ port: String(port), site: PageConfig.getOption('appName') || 'JupyterLite' });
  const frame = document.createElement('iframe');
  frame.src = `${assetsUrl}relay/connector.html?${query}`;
  frame.hidden = true;
  frame.setAttribute('aria-hidden', 'true');
  frame.dataset.webmcpRelayConnector = '';
  // What the widget's frame asks for (Chrome's local network access), passed on.
  frame.setAttribute('allow', 'loopback-network; local-network; local-network-access');
  document.body.appendChild(frame);
}

/** Follow the settings live: the connector is open while `localRelay` (and the bridge) is on, closed otherwise. */
export function followRelay(settings, assetsUrl) {
  if (!settings) {
    return;
  }
  const apply = () => {
    const { enabled, localRelay, localRelayPort } = settings.composite;
    if (localRelay === true && enabled !== false) {
      load(assetsUrl, Number.isInteger(localRelayPort) ? localRelayPort : 9333);
    } else {
      // Its frames' WebSocket closes with them, and the relay drops the lab.
      document.querySelectorAll(FRAME).forEach(frame => frame.remove());
    }
  };
  settings.changed.connect(apply);
  apply();
}
