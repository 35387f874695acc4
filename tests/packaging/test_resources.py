"""The packaging inputs: icon files match their SVG source, and the Qt slimming keeps what the app needs."""

import importlib.util
import struct
import sys
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, Qt
from PySide6.QtGui import QImage

ROOT = Path(__file__).resolve().parents[2]
ICONS = ROOT / "resources" / "icons"


def load_module(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None  # a .py path always gets a source file loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


# Another build of Qt's PNG encoder (or zlib) writes the same pixels as other bytes, and another
# rasterizer build may shade an anti-aliased edge a few levels differently: compare decoded pixels.
MAX_CHANNEL_DIFFERENCE = 16  # of 255, for any single channel of any pixel
MAX_MEAN_DIFFERENCE = 0.5  # over all channels of an image


def test_committed_icons_are_rendered_from_the_svg(qapp, tmp_path):
    make_icons = load_module(ICONS / "make_icons.py")
    written = make_icons.write_icons(tmp_path)
    assert {path.name for path in written} >= {"outpost.ico", "outpost.icns", "outpost-256.png"}
    stale = []
    for path in written:
        rendered, committed = icon_images(path), icon_images(ICONS / path.name)
        if [label for label, _ in rendered] != [label for label, _ in committed]:
            stale.append(f"{path.name}: holds {[label for label, _ in committed]}")
            continue
        for (label, image), (_, committed_image) in zip(rendered, committed, strict=True):
            difference = pixel_difference(image, committed_image)
            if difference is not None:
                stale.append(f"{path.name} {label}: {difference}")
    assert stale == [], "run resources/icons/make_icons.py after changing outpost.svg:\n" + "\n".join(stale)


def test_pixel_comparison_tolerates_reencoding_but_not_a_changed_pixel(qapp):
    image = QImage(ICONS / "outpost-64.png")
    reencoded = png_bytes(image, quality=0)
    assert reencoded != (ICONS / "outpost-64.png").read_bytes()
    assert pixel_difference(image, QImage.fromData(reencoded, "PNG")) is None
    changed = image.convertToFormat(QImage.Format.Format_ARGB32)
    changed.setPixelColor(32, 32, Qt.GlobalColor.magenta)
    assert pixel_difference(image, changed) is not None


def icon_images(path: Path) -> list[tuple[str, QImage]]:
    """The images a .png, .ico or .icns file holds, labelled by their place in it."""
    data = path.read_bytes()
    if path.suffix == ".ico":
        return [(f"entry {index}", png_image(png)) for index, png in enumerate(ico_pngs(data))]
    if path.suffix == ".icns":
        return [(kind.decode(), png_image(png)) for kind, png in icns_pngs(data)]
    return [("image", png_image(data))]


def png_image(data: bytes) -> QImage:
    # PySide6's stubs type the format (a C string) as bytes, but its runtime accepts only str there.
    return QImage.fromData(data, "PNG")  # type: ignore[arg-type]


def pixel_difference(first: QImage, second: QImage) -> str | None:
    """None when the two images show the same pixels within the tolerance, else what differs."""
    if first.isNull() or second.isNull():
        return "not a decodable image"
    if first.size() != second.size():
        return f"size {first.width()}x{first.height()} != {second.width()}x{second.height()}"
    first_bytes, second_bytes = rgba_bytes(first), rgba_bytes(second)
    if first_bytes == second_bytes:
        return None
    differences = [abs(a - b) for a, b in zip(first_bytes, second_bytes, strict=True)]
    largest, mean = max(differences), sum(differences) / len(differences)
    if largest <= MAX_CHANNEL_DIFFERENCE and mean <= MAX_MEAN_DIFFERENCE:
        return None
    return f"channels differ by up to {largest}, {mean:.2f} on average"


def rgba_bytes(image: QImage) -> bytes:
    # Premultiplied, so fully transparent pixels compare equal whatever colour they nominally hold.
    converted = image.convertToFormat(QImage.Format.Format_RGBA8888_Premultiplied)
    # constBits() does not keep the converted image alive: copy while `converted` still holds it.
    return bytes(converted.constBits())


def png_bytes(image: QImage, *, quality: int) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG", quality)  # type: ignore[call-overload]  # str, as in png_image
    return bytes(buffer.data().data())


def ico_pngs(data: bytes) -> list[bytes]:
    _reserved, _kind, count = struct.unpack_from("<HHH", data)
    pngs = []
    for index in range(count):
        length, offset = struct.unpack_from("<II", data, 6 + 16 * index + 8)
        pngs.append(data[offset:offset + length])
    return pngs


def icns_pngs(data: bytes) -> list[tuple[bytes, bytes]]:
    position, elements = 8, []
    while position < len(data):
        kind, length = data[position:position + 4], struct.unpack_from(">I", data, position + 4)[0]
        elements.append((kind, data[position + 8:position + length]))
        position += length
    return elements


def test_ico_directory_lists_each_size_with_png_data():
    data = (ICONS / "outpost.ico").read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", data)
    assert (reserved, kind, count) == (0, 1, 7)
    sizes = []
    for index in range(count):
        width, _height, _colors, _zero, _planes, _bits, length, offset = struct.unpack_from(
            "<BBBBHHII", data, 6 + 16 * index)
        image = QImage.fromData(data[offset:offset + length], "PNG")
        assert not image.isNull()
        assert image.width() == (width or 256)
        sizes.append(image.width())
    assert sizes == [16, 24, 32, 48, 64, 128, 256]


def test_icns_elements_cover_the_file_and_hold_pngs_of_their_size():
    data = (ICONS / "outpost.icns").read_bytes()
    assert data[:4] == b"icns" and struct.unpack_from(">I", data, 4)[0] == len(data)
    elements = icns_pngs(data)
    assert 8 + sum(8 + len(png) for _, png in elements) == len(data)
    kinds = {kind: QImage.fromData(png, "PNG").width() for kind, png in elements}
    assert kinds[b"ic10"] == 1024 and kinds[b"ic07"] == 128 and kinds[b"icp4"] == 16


def test_qt_slimming_keeps_the_platforms_and_drops_unused_plugins():
    qt_slim = load_module(ROOT / "packaging" / "qt_slim.py")
    plugins = "PySide6/Qt/plugins/"
    for kept in ("platforms/libqxcb.so", "platforms/libqoffscreen.so", "platforms/libqwayland.so",
                 "imageformats/libqsvg.so", "iconengines/libqsvgicon.so", "platformthemes/libqxdgdesktopportal.so"):
        assert qt_slim.keep((plugins + kept, "", "BINARY")), kept
    for dropped in ("platformthemes/libqgtk3.so", "platforms/libqeglfs.so", "sqldrivers/libqsqlite.so",
                    "imageformats/libqpdf.so"):
        assert not qt_slim.keep((plugins + dropped, "", "BINARY")), dropped
    assert not qt_slim.keep(("PySide6/Qt/translations/qtbase_de.qm", "", "DATA"))
    # Windows wheels have no Qt/ level and no "lib" prefix.
    assert not qt_slim.keep(("PySide6/plugins/imageformats/qpdf.dll", "", "BINARY"))
    assert not qt_slim.keep(("PySide6/translations/qtbase_de.qm", "", "DATA"))
    assert qt_slim.keep(("PySide6/plugins/platforms/qwindows.dll", "", "BINARY"))
    # Other packages' files with similar names are not Qt's.
    assert qt_slim.keep(("babel/translations/de.mo", "", "DATA"))
