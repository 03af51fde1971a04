#!/bin/sh
# make deb: packaging/make-deb.sh BUILD_DIR OUT_DIR -> OUT_DIR/linkperf_VERSION_ARCH.deb
# What `cmake --install --prefix /usr` puts in a staging root, laid out as Debian 12 expects
# (the unit in /lib/systemd/system, zsh's in vendor-completions, the man page compressed,
# the binary stripped, copyright and changelog in /usr/share/doc/linkperf), with Depends from
# dpkg-shlibdeps and the archive built by dpkg-deb. The version is the CMake project's
# (CMakeLists.txt, as `linkperf -v` prints it). The service is installed, not enabled: like
# Debian's iperf3 (iperf3/start_daemon defaults to false), a test server that answers anyone
# on the network is the administrator's choice: `systemctl enable --now linkperf`.
set -eu
build=${1:?usage: make-deb.sh BUILD_DIR OUT_DIR}
out=${2:?usage: make-deb.sh BUILD_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$build" && pwd)
die() { echo "make-deb: $*" >&2; exit 1; }
for t in dpkg-deb dpkg-shlibdeps strip gzip cmake; do
  command -v "$t" >/dev/null 2>&1 || die "$t not found (scripts/deps.sh deb installs it)"
done
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -n "$version" ] || die "no CMAKE_PROJECT_VERSION in $build/CMakeCache.txt (configure first)"
arch=$(dpkg --print-architecture)
# The project has no published contact address yet: DEB_MAINTAINER="Name <address>" sets it.
maintainer=${DEB_MAINTAINER:-linkperf developers <linkperf@example.org>}
# The packaging's own last change dates the changelog, so two builds of one tree give the
# same bytes (SOURCE_DATE_EPOCH wins, as Debian's tools read it).
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)}

work="$build/deb"
root="$work/root"
rm -rf "$work"
mkdir -p "$root/DEBIAN"
# cmake --install rewrites the build's install_manifest.txt, which make uninstall reads: the
# developer's own make install keeps its list.
manifest="$build/install_manifest.txt"
[ ! -f "$manifest" ] || cp "$manifest" "$work/manifest.saved"
DESTDIR="$root" LP_ALIASES=0 cmake --install "$build" --prefix /usr >"$work/install.log"
if [ -f "$work/manifest.saved" ]; then mv "$work/manifest.saved" "$manifest"; else rm -f "$manifest"; fi
# Debian 12 keeps units in /lib (usrmerge aliasing: dpkg must see the path the other
# packages use) and the packages' zsh functions in vendor-completions.
mkdir -p "$root/lib/systemd"
mv "$root/usr/lib/systemd/system" "$root/lib/systemd/system"
rmdir "$root/usr/lib/systemd" "$root/usr/lib"
mkdir -p "$root/usr/share/zsh/vendor-completions"
mv "$root/usr/share/zsh/site-functions/_linkperf" "$root/usr/share/zsh/vendor-completions/"
rmdir "$root/usr/share/zsh/site-functions"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/linkperf"
man1="$root/usr/share/man/man1"
gzip -9n "$man1/linkperf.1"
rm "$man1/linkperf2.1"
ln -s linkperf.1.gz "$man1/linkperf2.1.gz"

doc="$root/usr/share/doc/linkperf"
mkdir -p "$doc"
cp "$here/debian/copyright" "$doc/copyright"
{
  echo "linkperf ($version) unstable; urgency=medium"
  echo
  echo "  * Release $version, built from the project's tree (its history is the git log)."
  echo
  echo " -- $maintainer  $(date -u -R -d "@$epoch")"
} | gzip -9n >"$doc/changelog.gz"
for s in postinst prerm postrm; do
  install -m 0755 "$here/debian/$s" "$root/DEBIAN/$s"
done

# dpkg-shlibdeps reads the package's name from debian/control in its working directory.
mkdir -p "$work/src/debian"
printf 'Source: linkperf\n\nPackage: linkperf\nArchitecture: any\n' >"$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O -e"$root/usr/bin/linkperf" 2>"$work/shlibdeps.log" |
  sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { cat "$work/shlibdeps.log" >&2; die "dpkg-shlibdeps gave no Depends"; }
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s|@MAINTAINER@|$maintainer|" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/" \
  -e "s/@SIZE@/$size/" "$here/debian/control.in" >"$root/DEBIAN/control"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort |
  xargs md5sum) >"$root/DEBIAN/md5sums"

# Every file dated by the same epoch, so the archive's bytes depend on the tree only.
find "$root" -exec touch -h -d "@$epoch" {} +
export SOURCE_DATE_EPOCH="$epoch"
mkdir -p "$out"
deb="$out/linkperf_${version}_${arch}.deb"
rm -f "$out"/linkperf_*.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "make-deb: $deb"
