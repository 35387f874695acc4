# dmgbuild settings: the app and a link to /Applications side by side in a compressed image.
# Used by build.sh as: dmgbuild -s dmg_settings.py -D app=dist/Outpost.app -D icon=... "Outpost VERSION" out.dmg
# (dmgbuild runs this file with `defines` holding the -D values.)
import os.path

application = defines["app"]  # noqa: F821
app_name = os.path.basename(application)

format = "UDZO"
filesystem = "HFS+"
files = [application]
symlinks = {"Applications": "/Applications"}
icon = defines.get("icon")  # noqa: F821  (volume icon)
icon_locations = {app_name: (140, 160), "Applications": (400, 160)}
window_rect = ((200, 200), (540, 340))
default_view = "icon-view"
show_status_bar = False
show_tab_view = False
show_toolbar = False
show_pathbar = False
show_sidebar = False
icon_size = 96
text_size = 13
