"""The desktop side of jupyterlite-pyodide-webmcp: the lab's notebook tools for a desktop MCP host.

`jupyterlite-pyodide-webmcp mcp` (cli.py) builds a JupyterLite site with the bridge for a folder of
notebooks (sites.py), serves it on 127.0.0.1 (site_server.py), opens it in a Chromium-based browser
with WebMCP on (browser.py finds one; lab_page.py drives it with Playwright) and serves the page's own
WebMCP tools, and only those, over MCP on stdio (mcp_server.py). Importing the package imports
nothing else.
"""
