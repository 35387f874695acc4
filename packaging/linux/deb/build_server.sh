#!/usr/bin/env bash
# Builds dist/outpost-server_VERSION_amd64.deb: the server in its own Python environment under
# /opt/outpost-server (Debian's python3 interpreter, every library from the pinned versions, no Qt),
# /usr/bin/outpost-server, the systemd service and /etc/outpost/server.env.
set -euo pipefail
cd "$(dirname "$0")/../../.."
. packaging/linux/deb/common.sh

# The environment runs on the target's Debian interpreter, so it is built with the same one.
python=${OUTPOST_DEB_PYTHON:-/usr/bin/python3}
interpreter=$("$python" -c 'import sys; print(f"python{sys.version_info[0]}.{sys.version_info[1]}")')
root=build/deb/outpost-server
env_dir=$root/opt/outpost-server
rm -rf "$root"
mkdir -p "$root/usr/bin" "$root/lib/systemd/system" "$root/etc/outpost"

"$python" -m venv --without-pip "$env_dir"
# Pin the interpreter's version: the compiled libraries are built for it, not for whatever python3 becomes.
ln -sf "/usr/bin/$interpreter" "$env_dir/bin/python3"
sed -i '/^command = /d' "$env_dir/pyvenv.cfg"
# setuptools builds in server/build (and model/build) and never removes what an earlier build left there, so a module deleted
# or moved since would still be installed.
rm -rf server/build model/build
# Byte code is compiled by the postinst on the target (and removed by the prerm), not shipped.
"$PY" -m pip --python "$env_dir/bin/python" install --quiet --no-compile --no-warn-script-location \
    -c constraints.txt ./model './server[postgres]'
# Only the server's own command stays; the others (uvicorn, alembic, ...) would name the build folder.
find "$env_dir/bin" -mindepth 1 -maxdepth 1 ! -name 'python*' ! -name outpost-server -delete
sed -i "1s|^#!.*|#!/opt/outpost-server/bin/python|" "$env_dir/bin/outpost-server"
rm -rf "$env_dir/include" "$env_dir/lib64"
# Wheels' compiled modules keep their symbols; the package does not need them (uvloop alone shrinks by half).
find "$env_dir/lib" -type f -name '*.so*' -exec strip --strip-unneeded {} + -exec chmod 644 {} +
# reportlab's Type 1 font files: the PDF reports use the standard PDF fonts, which a PDF names and never
# embeds, and the licences of those files do not allow redistribution (Debian's reportlab drops them too).
find "$env_dir/lib" -path '*/reportlab/fonts/*.pfb' -delete
# Nothing in site-packages is run directly (some wheels ship their tests executable).
find "$env_dir/lib" -type f -perm /111 -exec chmod a-x {} +
if grep -rIl --exclude=RECORD "$PWD/$root" "$env_dir" >/dev/null; then
    echo "the environment still names the build folder:" >&2
    grep -rIl --exclude=RECORD "$PWD/$root" "$env_dir" >&2
    exit 1
fi
# Every server module imports in the environment alone: a dependency missing from server/pyproject.toml
# would otherwise only show when the service starts.
"$env_dir/bin/python" -B -c 'import importlib, pkgutil, outpost_server
for module in pkgutil.walk_packages(outpost_server.__path__, "outpost_server."):
    # __main__ runs the command; Alembic loads the migration scripts itself, inside a migration.
    if not module.name.endswith(".__main__") and not module.name.startswith("outpost_server.migrations."):
        importlib.import_module(module.name)'
ln -s /opt/outpost-server/bin/outpost-server "$root/usr/bin/outpost-server"

install -m 644 "$deb_dir/outpost-server.service" "$root/lib/systemd/system/outpost-server.service"
install -m 640 "$deb_dir/server.env" "$root/etc/outpost/server.env"
add_documentation "$root" outpost-server outpost-server
add_lintian_overrides "$root" outpost-server

install -d -m 755 "$root/DEBIAN"
echo /etc/outpost/server.env > "$root/DEBIAN/conffiles"
chmod 644 "$root/DEBIAN/conffiles"
for script in postinst prerm postrm; do
    install -m 755 "$deb_dir/outpost-server.$script" "$root/DEBIAN/$script"
done
glibc=$(dpkg-query -W -f='${Version}' libc6 | cut -d- -f1)
build_deb "$root" outpost-server "$interpreter, libc6 (>= $glibc), adduser, init-system-helpers (>= 1.52)"
