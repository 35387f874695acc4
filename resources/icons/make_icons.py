"""Render resources/icons/outpost.svg into the PNG sizes and the Windows .ico / macOS .icns files.

Run from the repository root after changing the SVG: ``.venv/bin/python resources/icons/make_icons.py``.
Qt renders the PNGs; the .ico and .icns containers are written here (both formats may
hold PNG data directly), so no image library beyond PySide6 is needed.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "outpost.svg"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512, 1024)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# ICNS element types that carry PNG data, by pixel size (the @2x "retina" types share sizes).
ICNS_TYPES = (
    (b"icp4", 16), (b"icp5", 32), (b"icp6", 64), (b"ic07", 128), (b"ic08", 256), (b"ic09", 512),
    (b"ic10", 1024), (b"ic11", 32), (b"ic12", 64), (b"ic13", 256), (b"ic14", 512),
)


def render_png(renderer: QSvgRenderer, size: int) -> bytes:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # PySide6's stubs type the format (a C string) as bytes, but its runtime accepts only str there.
    image.save(buffer, "PNG")  # type: ignore[call-overload]
    buffer.close()
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """ICONDIR, one ICONDIRENTRY per size, then the PNG images (Windows Vista and later read PNG entries)."""
    header = struct.pack("<HHH", 0, 1, len(ICO_SIZES))
    offset = len(header) + 16 * len(ICO_SIZES)
    entries, images = b"", b""
    for size in ICO_SIZES:
        png = pngs[size]
        side = 0 if size >= 256 else size  # 0 means 256 in this byte-wide field
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset)
        images += png
        offset += len(png)
    return header + entries + images


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    body = b"".join(kind + struct.pack(">I", 8 + len(pngs[size])) + pngs[size] for kind, size in ICNS_TYPES)
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def write_icons(target: Path) -> list[Path]:
    """Render every icon file into ``target``; needs a Q(Gui)Application."""
    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        raise ValueError(f"cannot read {SOURCE}")
    pngs = {size: render_png(renderer, size) for size in PNG_SIZES}
    outputs = {target / f"outpost-{size}.png": png for size, png in pngs.items()}
    outputs[target / "outpost.ico"] = ico_bytes(pngs)
    outputs[target / "outpost.icns"] = icns_bytes(pngs)
    for path, data in outputs.items():
        path.write_bytes(data)
    return list(outputs)


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    written = write_icons(HERE)
    del app
    print(f"wrote {len(written)} files in {HERE.name}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
