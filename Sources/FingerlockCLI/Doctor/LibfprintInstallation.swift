import Foundation

/// Which libfprint this process runs with, and its version.
///
/// libfprint 1.94 has no version function and its soname (`libfprint-2.so.2.0.0`) does not change
/// with releases, so the loaded library's path is taken from `/proc/self/maps` (the library that is
/// really mapped, not whatever headers happen to be installed) and its version from the dpkg
/// database entry of the package that owns that path. Reading dpkg's files directly needs no
/// subprocess and works from a fake tree in tests. A libfprint built from source is reported with
/// its path and an unknown version.
public struct LibfprintInstallation: Equatable, Sendable {
    /// The mapped library file, e.g. `/usr/lib/x86_64-linux-gnu/libfprint-2.so.2.0.0`.
    public var path: String
    /// The owning Debian package (`libfprint-2-2:amd64`), when dpkg knows the file.
    public var package: String?
    /// The package version (`1:1.94.5-1`).
    public var packageVersion: String?

    public init(path: String, package: String? = nil, packageVersion: String? = nil) {
        self.path = path
        self.package = package
        self.packageVersion = packageVersion
    }

    /// The upstream version: `1:1.94.5-1` → `1.94.5`.
    public var upstreamVersion: String? {
        guard var version = packageVersion else { return nil }
        if let colon = version.firstIndex(of: ":") { version = String(version[version.index(after: colon)...]) }
        if let dash = version.lastIndex(of: "-") { version = String(version[..<dash]) }
        return version
    }

    /// Finds libfprint in `<procRoot>/self/maps` and looks its path up under `dpkgRoot`
    /// (normally `/var/lib/dpkg`). Nil when no libfprint is mapped.
    public static func locate(procRoot: String, dpkgRoot: String) -> LibfprintInstallation? {
        guard let maps = PseudoFile.read(procRoot + "/self/maps") else { return nil }
        let path = maps.split(separator: "\n").lazy
            .compactMap { line -> String? in
                // address perms offset dev inode pathname: only the pathname holds a slash.
                guard let slash = line.firstIndex(of: "/") else { return nil }
                let pathname = line[slash...].trimmingCharacters(in: .whitespaces)
                let file = pathname.split(separator: "/").last.map(String.init) ?? ""
                return file.hasPrefix("libfprint-2.so") ? pathname : nil
            }
            .first
        guard let path else { return nil }
        var installation = LibfprintInstallation(path: path)
        if let package = owningPackage(of: path, dpkgRoot: dpkgRoot) {
            installation.package = package
            installation.packageVersion = installedVersion(of: package, dpkgRoot: dpkgRoot)
        }
        return installation
    }

    /// The package whose file list (`info/<package>.list`) names `path`. Only libfprint packages
    /// are searched, so this stays cheap. `/lib` and `/usr/lib` count as the same place (merged /usr).
    static func owningPackage(of path: String, dpkgRoot: String) -> String? {
        let info = dpkgRoot + "/info"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: info) else { return nil }
        let wanted = unmerged(path)
        for name in names.sorted() where name.hasPrefix("libfprint") && name.hasSuffix(".list") {
            guard let list = try? String(contentsOfFile: info + "/" + name, encoding: .utf8) else { continue }
            if list.split(separator: "\n").contains(where: { unmerged(String($0)) == wanted }) {
                return String(name.dropLast(".list".count))
            }
        }
        return nil
    }

    /// The `Version:` of `package` (`name` or `name:arch`) in dpkg's status file, if installed.
    static func installedVersion(of package: String, dpkgRoot: String) -> String? {
        guard let status = try? String(contentsOfFile: dpkgRoot + "/status", encoding: .utf8) else { return nil }
        let parts = package.split(separator: ":", maxSplits: 1)
        let name = parts.first.map(String.init) ?? package
        let architecture = parts.count == 2 ? String(parts[1]) : nil
        for stanza in status.components(separatedBy: "\n\n") {
            var fields: [String: String] = [:]
            for line in stanza.split(separator: "\n") where !line.hasPrefix(" ") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            guard fields["Package"] == name, fields["Status"]?.hasSuffix(" installed") == true else { continue }
            if let architecture, let listed = fields["Architecture"], listed != architecture { continue }
            return fields["Version"]
        }
        return nil
    }

    private static func unmerged(_ path: String) -> String {
        path.hasPrefix("/usr/") ? String(path.dropFirst(4)) : path
    }
}
