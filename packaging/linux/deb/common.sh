# Shared by the .deb recipes (sourced, not run): version, dates, documentation files and the final dpkg-deb call.
# Expects to be sourced from the repository root.

PY=${PY:-.venv/bin/python}
version=${OUTPOST_DEB_VERSION:-$("$PY" -c 'import console; print(console.__version__)')}
# Reproducible dates: the last commit's time, unless the builder sets SOURCE_DATE_EPOCH.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
maintainer="Outpost developers <outpost@example.org>"
deb_dir=packaging/linux/deb

# Writes usr/share/doc/PACKAGE/{copyright,changelog.gz} and the man page of COMMAND into ROOT.
add_documentation() {
    local root=$1 package=$2 command=$3
    local doc="$root/usr/share/doc/$package"
    install -d -m 755 "$doc" "$root/usr/share/man/man1"
    install -m 644 "$deb_dir/copyright" "$doc/copyright"
    {
        echo "$package ($version) stable; urgency=medium"
        echo
        echo "  * Outpost $version: see the README for what this release contains."
        echo
        echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
    } | gzip -9n > "$doc/changelog.gz"
    sed "s/@VERSION@/$version/" "$deb_dir/$command.1" | gzip -9n > "$root/usr/share/man/man1/$command.1.gz"
    chmod 644 "$doc/changelog.gz" "$root/usr/share/man/man1/$command.1.gz"
}

# Adds lintian's override file for PACKAGE (the reasons are in packaging/README.md).
add_lintian_overrides() {
    local root=$1 package=$2
    install -d -m 755 "$root/usr/share/lintian/overrides"
    install -m 644 "$deb_dir/$package.lintian-overrides" "$root/usr/share/lintian/overrides/$package"
}

# Fills DEBIAN/control from its template, adds md5sums and builds dist/PACKAGE_VERSION_amd64.deb.
build_deb() {
    local root=$1 package=$2 depends=$3
    local installed_size
    find "$root" -path "$root/DEBIAN" -prune -o -type d -exec chmod 755 {} +
    installed_size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
    install -d -m 755 "$root/DEBIAN"
    sed -e "s/@VERSION@/$version/" -e "s/@MAINTAINER@/$maintainer/" -e "s/@INSTALLED_SIZE@/$installed_size/" \
        -e "s/@DEPENDS@/$depends/" "$deb_dir/$package.control" > "$root/DEBIAN/control"
    (cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) \
        > "$root/DEBIAN/md5sums"
    chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
    mkdir -p dist
    dpkg-deb --root-owner-group -Z"${OUTPOST_DEB_COMPRESSION:-xz}" --build "$root" "dist/${package}_${version}_amd64.deb" >/dev/null
    echo "$package: dist/${package}_${version}_amd64.deb, $(du -h "dist/${package}_${version}_amd64.deb" | cut -f1)" \
         "($(stat -c %s "dist/${package}_${version}_amd64.deb") bytes; installed ${installed_size} KiB)"
}
