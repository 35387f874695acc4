"""The packaging inputs: icon files match their SVG source, and the Qt slimming keeps what the app needs."""

import importlib.util
import struct
import sys
from pathlib import Path

from PySide6.QtGui import QImage

ROOT = Path(__file__).resolve().parents[2]
ICONS = ROOT / "resources" / "icons"


def load_module(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def test_committed_icons_are_rendered_from_the_svg(qapp, tmp_path):
    make_icons = load_module(ICONS / "make_icons.py")
    written = make_icons.write_icons(tmp_path)
    assert {path.name for path in written} >= {"outpost.ico", "outpost.icns", "outpost-256.png"}
    stale = [path.name for path in written if path.read_bytes() != (ICONS / path.name).read_bytes()]
    assert stale == [], "run resources/icons/make_icons.py after changing outpost.svg"


def test_ico_directory_lists_each_size_with_png_data():
    data = (ICONS / "outpost.ico").read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", data)
    assert (reserved, kind, count) == (0, 1, 7)
    sizes = []
    for index in range(count):
        width, _height, _colors, _zero, _planes, _bits, length, offset = struct.unpack_from("<BBBBHHII", data, 6 + 16 * index)
        image = QImage.fromData(data[offset:offset + length], "PNG")
        assert not image.isNull()
        assert image.width() == (width or 256)
        sizes.append(image.width())
    assert sizes == [16, 24, 32, 48, 64, 128, 256]


def test_icns_elements_cover_the_file_and_hold_pngs_of_their_size():
    data = (ICONS / "outpost.icns").read_bytes()
    assert data[:4] == b"icns" and struct.unpack_from(">I", data, 4)[0] == len(data)
    position, kinds = 8, {}
    while position < len(data):
        kind, length = data[position:position + 4], struct.unpack_from(">I", data, position + 4)[0]
        image = QImage.fromData(data[position + 8:position + length], "PNG")
        kinds[kind] = image.width()
        position += length
    assert position == len(data)
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
