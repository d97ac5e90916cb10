// The page of the hidden frame the lab opens for webmcp-local-relay (lib/relay.js), served beside the relay's
// own embed.js and widget.html in static/bridge/relay/. Here, not in the lab's page, the embed runs: it sees
// this page's title (the site's name, never the lab's, which names the current notebook), its reload message
// reloads this frame only, and the lab's page gains no globals. It reads the lab's tools and calls them
// through the lab's own WebMCP, the same tools every client gets.
(function () {
  const query = new URLSearchParams(window.location.search);
  document.title = query.get('site') || 'JupyterLite';
  const lab = window.parent;
  const define = (name, value) => Object.defineProperty(navigator, name, { value, configurable: true });

  // The embed finds tools through `navigator.modelContextTesting` (Chromium's testing API, which the
  // @mcp-b/global polyfill also offers) in its own frame: the lab's, where the lab has one.
  if (lab.navigator.modelContextTesting) {
    define('modelContextTesting', lab.navigator.modelContextTesting);
  } else if (lab.document.modelContext) {
    // Chromium 156's native WebMCP has only document.modelContext, listing asynchronously: the testing API's
    // shape over it, its list kept from getTools() and renewed on every toolchange.
    const context = lab.document.modelContext;
    let tools = [];
    const listeners = [];
    const renew = () =>
      context.getTools().then(current => {
        tools = current;
        listeners.forEach(listener => listener());
      });
    const describe = tool => ({
      name: tool.name,
      description: tool.description,
      inputSchema: typeof tool.inputSchema === 'string' ? tool.inputSchema : JSON.stringify(tool.inputSchema || {})
    });
    define('modelContextTesting', {
      listTools: () => tools.map(describe),
      executeTool: async (name, inputJson) => {
        const tool = tools.find(candidate => candidate.name === name);
        if (!tool) {
          return JSON.stringify({ isError: true, content: [{ type: 'text', text: `No tool named ${name} in the lab.` }] });
        }
        const result = await context.executeTool(tool, JSON.parse(inputJson || '{}'));
        return typeof result === 'string' ? result : JSON.stringify(result);
      },
      registerToolsChangedCallback: callback => listeners.push(callback)
    });
    context.addEventListener('toolchange', renew);
    renew();
  }

  const embed = document.createElement('script');
  embed.src = 'embed.js';
  embed.dataset.relayPort = query.get('port') || '9333';
  document.head.appendChild(embed);
})();
