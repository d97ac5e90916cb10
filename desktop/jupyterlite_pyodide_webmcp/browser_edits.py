"""Work an earlier version kept in the browser profile, written into the folder beside its file.

Before the lab read and wrote the folder in place, what the agent and the human saved stayed in the
profile's browser storage (JupyterLite's IndexedDB drive). On the first start that serves the folder,
every notebook or file kept there that differs from the folder's is written beside it as
`name.from-browser.ipynb` (`-2`, `-3`... when taken); nothing in the folder is overwritten.
"""

import base64
import json
from pathlib import Path
from typing import Any

from .contents_api import beside

MARKER = "jupyterlite-pyodide-webmcp-folder"  # in a profile: its browser storage was looked at
# Every file model of JupyterLite's browser drives on this origin ("JupyterLite Storage - <baseUrl>").
READ_BROWSER_STORAGE = """async () => {
  const names = (await indexedDB.databases()).map(db => db.name).filter(n => n.startsWith('JupyterLite Storage'));
  const rows = [];
  for (const name of names) {
    const db = await new Promise((ok, ko) => {
      const opening = indexedDB.open(name);
      opening.onsuccess = () => ok(opening.result);
      opening.onerror = () => ko(opening.error);
    });
    if (db.objectStoreNames.contains('files')) {
      await new Promise((ok, ko) => {
        const cursor = db.transaction('files', 'readonly').objectStore('files').openCursor();
        cursor.onsuccess = () => {
          const at = cursor.result;
          if (!at) return ok();
          rows.push(at.value);
          at.continue();
        };
        cursor.onerror = () => ko(cursor.error);
      });
    }
    db.close();
  }
  return rows;
}"""


def comparable(model: dict[str, Any]) -> Any:
    """What a notebook's or file's content says, whatever the line splitting of its sources."""
    content = model.get("content")
    if model.get("type") != "notebook" or not isinstance(content, dict):
        return content
    cells = [{**cell, "source": "".join(cell["source"]) if isinstance(cell.get("source"), list) else
              cell.get("source")} for cell in content.get("cells", []) if isinstance(cell, dict)]
    return {"cells": cells, "metadata": content.get("metadata", {})}


def on_disk(path: Path, model: dict[str, Any]) -> Any:
    if not path.is_file():
        return None
    try:
        if model.get("type") == "notebook":
            return comparable({"type": "notebook", "content": json.loads(path.read_text(encoding="utf-8"))})
        if model.get("format") == "base64":
            return base64.b64encode(path.read_bytes()).decode()
        return path.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None


def keep_browser_edits(models: list[dict[str, Any]], root: Path) -> list[Path]:
    """Write each kept notebook or file that differs from the folder's beside it; returns what was written."""
    written = []
    for model in models:
        path = str(model.get("path") or "").strip("/")
        if model.get("type") not in ("notebook", "file") or model.get("content") is None or not path:
            continue
        target = (root / path).resolve()
        if root.resolve() not in target.parents or any(part.startswith(".") for part in Path(path).parts):
            continue
        if on_disk(target, model) == comparable(model):
            continue
        copy = beside(target, "from-browser")
        copy.parent.mkdir(parents=True, exist_ok=True)
        if model["type"] == "notebook":
            copy.write_text(json.dumps(model["content"], indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        elif model.get("format") == "base64":
            copy.write_bytes(base64.b64decode(model["content"]))
        else:
            copy.write_text(str(model["content"]), encoding="utf-8")
        written.append(copy)
    return written
