"""Output images an agent can see: decoded and downscaled in the page (a canvas) to the image budget."""

import base64
from typing import Any, Optional

from js import URL, Blob, Image, OffscreenCanvas, createImageBitmap
from pyodide.ffi import to_js

from ..base import limits
from ..base.mime import looks_base64
from .ffi import to_js_object

# (type, quality) tried in order until the image fits the byte budget; then the size shrinks.
_ENCODINGS = (("image/png", None), ("image/jpeg", 0.85), ("image/jpeg", 0.7), ("image/jpeg", 0.5))
_SHRINK = 0.7
_SVG_DEFAULT = (300, 150)  # an SVG without intrinsic size renders at the browser's default


async def _decoded(mime: str, blob: Any) -> tuple[Any, int, int]:
    """Something a canvas can draw, and its width and height."""
    if mime == "image/svg+xml":
        url = URL.createObjectURL(blob)
        try:
            image = Image.new()
            image.src = url
            await image.decode()
            return image, int(image.naturalWidth) or _SVG_DEFAULT[0], int(image.naturalHeight) or _SVG_DEFAULT[1]
        finally:
            URL.revokeObjectURL(url)
    bitmap = await createImageBitmap(blob)
    return bitmap, int(bitmap.width), int(bitmap.height)


async def _encode(source: Any, width: int, height: int, kind: str, quality: Optional[float]) -> Any:
    canvas = OffscreenCanvas.new(width, height)
    context = canvas.getContext("2d")
    if kind == "image/jpeg":  # no alpha in JPEG: what is transparent shows white, as on the page
        context.fillStyle = "#ffffff"
        context.fillRect(0, 0, width, height)
    context.drawImage(source, 0, 0, width, height)
    options = {"type": kind} if quality is None else {"type": kind, "quality": quality}
    return await canvas.convertToBlob(to_js_object(options))


async def render_image(mime: str, data: str) -> Optional[dict[str, str]]:
    """An MCP image content item of at most MAX_IMAGE_SIDE_PX and MAX_IMAGE_BYTES, or None when it cannot be made so."""
    try:
        raw = data.encode() if mime == "image/svg+xml" and not looks_base64(data) else base64.b64decode(data)
        source, width, height = await _decoded(mime, Blob.new(to_js([to_js(raw)]), to_js_object({"type": mime})))
    except Exception:  # not an image the browser can decode
        return None
    scale = min(1.0, limits.MAX_IMAGE_SIDE_PX / max(width, height, 1))
    for _ in range(4):
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        for kind, quality in _ENCODINGS:
            blob = await _encode(source, *size, kind, quality)
            if int(blob.size) <= limits.MAX_IMAGE_BYTES:
                encoded = (await blob.arrayBuffer()).to_bytes()
                return {"type": "image", "data": base64.b64encode(encoded).decode(), "mimeType": kind}
        scale *= _SHRINK
    return None

