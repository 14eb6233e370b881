public import Foundation
import SafeFiles

#if canImport(Glibc)
    import Glibc
#endif

/// The remote as a git repository, through the user's own `git` (it knows their ssh keys and
/// credential helpers; no Swift git library offers credential callbacks). Everything goes through
/// a bare repository in the data directory with plumbing commands only: no work tree is ever
/// checked out, so nothing in the remote (`.gitattributes`, filters, textconv) applies; hooks,
/// the system configuration, prompts and `ext::` URLs are off; a time limit holds each command.
public struct GitRemote: SyncRemote {
    public let url: String
    let repository: String
    let git: GitProcess
    static let branch = "main"
    static let fetched = "refs/remotes/sync/main"
    static let outgoing = "refs/fingerlock/outgoing"
    /// The neutral identity every commit carries: no user name, e-mail or host name.
    static let identity = "fingerlock <fingerlock@invalid>"

    /// - Parameters:
    ///   - repository: the bare repository this machine keeps (created on first use, 0700).
    ///   - environment: the user's environment; only what git needs to reach the remote is kept.
    public init(
        url: String, repository: String, gitExecutable: String = "/usr/bin/git", environment: [String: String],
        timeout: Duration = .seconds(120)
    ) {
        self.url = url
        self.repository = repository
        var kept: [String: String] = [:]
        let passed = [
            "HOME", "PATH", "USER", "LOGNAME", "SSH_AUTH_SOCK", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_SSH_VARIANT", "XDG_CONFIG_HOME",
            "http_proxy", "https_proxy", "no_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
            "SSL_CERT_FILE", "SSL_CERT_DIR", "GIT_SSL_CAINFO",
        ]
        for name in passed { kept[name] = environment[name] }
        kept["PATH"] = kept["PATH"] ?? "/usr/bin:/bin"
        kept["LC_ALL"] = "C"
        kept["GIT_TERMINAL_PROMPT"] = "0"
        kept["GIT_CONFIG_NOSYSTEM"] = "1"
        kept["GIT_ATTR_NOSYSTEM"] = "1"
        kept["GIT_NO_REPLACE_OBJECTS"] = "1"
        kept["SSH_ASKPASS_REQUIRE"] = "never"
        self.git = GitProcess(executable: gitExecutable, environment: kept, timeout: timeout)
    }

    /// What every command runs with: the repository, and the settings that keep the remote's
    /// content and the user's configuration from running anything or asking anything.
    private var common: [String] {
        [
            "--git-dir=" + repository, "-c", "core.hooksPath=/dev/null", "-c", "core.attributesFile=/dev/null", "-c",
            "core.fsmonitor=false", "-c", "core.askPass=/bin/false", "-c", "protocol.ext.allow=never", "-c", "transfer.fsckObjects=true",
            "-c", "gc.autoDetach=false", "-c", "maintenance.auto=false", "-c", "credential.interactive=never",
        ]
    }

    private func run(_ arguments: [String], input: [UInt8] = [], what: String) throws(SyncError) -> GitProcess.Output {
        let output = try git.run(common + arguments, input: input)
        guard output.status == 0 else { throw SyncError(.git, "git could not \(what): \(output.complaint)") }
        return output
    }

    private func prepare() throws(SyncError) {
        guard !FileManager.default.fileExists(atPath: repository + "/HEAD") else { return }
        do {
            _ = try PrivateDirectory(creating: repository)
        } catch {
            throw SyncError(.io, "Cannot create \(repository): \(error)")
        }
        // No template: nothing (hooks, info files) is copied from the system's.
        let output = try git.run(["init", "--quiet", "--bare", "--template=", repository])
        guard output.status == 0 else { throw SyncError(.git, "git could not set up \(repository): \(output.complaint)") }
    }

    /// Whether the remote is a repository on this machine (a path, or file://). git then runs the
    /// remote's side itself, as this user, and would run the hooks that repository holds: a
    /// repository on a USB stick must not run code on push.
    var isLocal: Bool {
        if url.hasPrefix("file://") { return true }
        if url.contains("://") { return false }
        // scp-like "host:path" is ssh, unless a slash comes before the colon.
        guard let colon = url.firstIndex(of: ":") else { return true }
        return url[..<colon].contains("/")
    }

    private func localPackCommand(_ option: String, _ command: String) -> [String] {
        isLocal ? ["\(option)=git -c core.hooksPath=/dev/null \(command)"] : []
    }

    /// Settings a repository on this machine may hold. git runs the remote's side of a fetch or
    /// push on such a repository itself, as this user, reading its configuration: some settings
    /// run commands (`core.alternateRefsCommand`, `receive.procReceiveRefs`, an `include`), so any
    /// other setting is refused rather than obeyed. Hooks are turned off by the command line.
    static let localSettingsAllowed: Set<String> = [
        "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates", "core.ignorecase",
        "core.precomposeunicode", "core.symlinks", "core.sharedrepository", "core.compression", "core.bigfilethreshold",
        "core.hookspath", "extensions.objectformat", "init.defaultbranch", "receive.denynonfastforwards", "receive.denydeletes",
        "receive.maxinputsize", "receive.fsckobjects", "transfer.fsckobjects", "fetch.fsckobjects",
        "gc.auto", "pack.compression",
    ]

    /// Refuses a repository on this machine whose configuration holds a setting outside
    /// `localSettingsAllowed` (read with `--no-includes`: an include is itself refused).
    private func checkLocalRepository() throws(SyncError) {
        guard isLocal else { return }
        var path = url.hasPrefix("file://") ? String(url.dropFirst(7)) : url
        if path.hasSuffix("/") { path.removeLast() }
        // Only a bare repository at exactly this path: git would also try PATH/.git, a `.git` file
        // pointing elsewhere, and PATH.git, whose settings this check would not have read.
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        let exists = manager.fileExists(atPath: path, isDirectory: &isDirectory)
        if manager.fileExists(atPath: path + "/.git") || (!exists && manager.fileExists(atPath: path + ".git")) {
            throw SyncError(.invalidInput, "\(url) is not a bare repository at that path; sync takes one made with `git init --bare`.")
        }
        guard exists, isDirectory.boolValue else { return }
        let attributes = (try? Data(contentsOf: URL(fileURLWithPath: path + "/info/attributes"))) ?? Data()
        if attributes.contains(where: { !$0.isASCIIWhitespace }) {
            throw SyncError(.invalidInput, "The repository \(url) has attributes (info/attributes) git would apply as you; remove them.")
        }
        let config = path + "/config"
        guard manager.fileExists(atPath: config) else { return }
        let listed = try git.run(["config", "--file", config, "--no-includes", "--name-only", "--list"])
        guard listed.status == 0 else {
            throw SyncError(.git, "git could not read the configuration of \(url): \(listed.complaint)")
        }
        for name in String(decoding: listed.stdout, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let key = name.lowercased()
            if !Self.localSettingsAllowed.contains(key) {
                let shown = String(name.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.prefix(80).map(Character.init))
                throw SyncError(
                    .invalidInput,
                    "The repository \(url) sets \(shown), which git would obey as you when it works there: remove that setting, or reach the repository over ssh."
                )
            }
        }
    }

    public func fetch() throws(SyncError) -> RemoteListing {
        try prepare()
        try checkLocalRepository()
        _ = try run(
            // A wildcard: an empty remote has no branch yet, and fetching a named one would fail.
            ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--prune"] + localPackCommand("--upload-pack", "upload-pack")
                + ["--", url, "+refs/heads/\(Self.branch)*:refs/remotes/sync/\(Self.branch)*"],
            what: "fetch from \(url)")
        guard let revision = try fetchedRevision() else { return RemoteListing(revision: nil, sizes: [:]) }
        let tree = try run(["ls-tree", "-r", "-l", "-z", "--full-tree", revision], what: "list the remote's files")
        var sizes: [String: Int] = [:]
        var objects: [String: String] = [:]
        for entry in tree.stdout.split(separator: 0) {
            // "<mode> SP <type> SP <object> SP+ <size> TAB <path>"
            guard let tab = entry.firstIndex(of: 9) else { continue }
            let fields = entry[..<tab].split(separator: 32)
            guard fields.count == 4, fields[1].elementsEqual("blob".utf8), let size = Int(String(decoding: fields[3], as: UTF8.self))
            else { continue }
            let path = String(decoding: entry[(tab + 1)...], as: UTF8.self)
            sizes[path] = size
            objects[path] = String(decoding: fields[2], as: UTF8.self)
        }
        return RemoteListing(revision: revision, sizes: sizes, objects: objects)
    }

    /// The commit the fetch brought, read from the mirror's own ref file (a process less per sync)
    /// or, where git packed its refs, from git.
    private func fetchedRevision() throws(SyncError) -> String? {
        if let bytes = FileManager.default.contents(atPath: repository + "/" + Self.fetched) {
            let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.count == 40 || text.count == 64, text.allSatisfy(\.isHexDigit) { return text }
        }
        let tip = try git.run(common + ["rev-parse", "--quiet", "--verify", Self.fetched + "^{commit}"])
        guard tip.status == 0 else { return nil }
        return String(decoding: tip.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func read(_ paths: [String], from listing: RemoteListing) throws(SyncError) -> [String: Data] {
        guard let revision = listing.revision else { return [:] }
        let wanted = paths.filter { listing.sizes[$0] != nil && !$0.contains("\n") }
        guard !wanted.isEmpty else { return [:] }
        let input = wanted.map { "\(revision):\($0)\n" }.joined()
        let output = try run(["cat-file", "--batch"], input: Array(input.utf8), what: "read the remote's records")
        var found: [String: Data] = [:]
        var index = output.stdout.startIndex
        for path in wanted {
            guard let newline = output.stdout[index...].firstIndex(of: 10) else { break }
            let header = String(decoding: output.stdout[index..<newline], as: UTF8.self).split(separator: " ")
            index = newline + 1
            guard header.count == 3, header[1] == "blob", let size = Int(header[2]) else { continue }
            guard index + size <= output.stdout.endIndex else {
                throw SyncError(.git, "git gave a short answer reading \(path).")
            }
            found[path] = Data(output.stdout[index..<(index + size)])
            index += size + 1
        }
        return found
    }

    public func publish(_ publication: RemotePublication, onto listing: RemoteListing) throws(SyncError) -> Bool {
        var stream: [UInt8] = []
        func line(_ text: String) { stream += Array((text + "\n").utf8) }
        func data(_ bytes: some Collection<UInt8>) {
            line("data \(bytes.count)")
            stream += bytes
            stream.append(10)
        }
        let seconds = Int(Date().timeIntervalSince1970)
        line("commit \(Self.outgoing)")
        line("author \(Self.identity) \(seconds) +0000")
        line("committer \(Self.identity) \(seconds) +0000")
        data(Array(publication.message.utf8))
        if publication.replacingHistory {
            // A new root: the old history stays out of what new clones fetch.
            line("deleteall")
        } else {
            if let revision = listing.revision { line("from \(revision)") }
            for path in publication.removed.sorted() { line("D \(path)") }
        }
        for (path, bytes) in publication.added.sorted(by: { $0.key < $1.key }) {
            line("M 100644 inline \(path)")
            data(bytes)
        }
        line("done")
        _ = try run(["fast-import", "--quiet", "--force", "--done", "--date-format=raw"], input: stream, what: "record the changes")
        try checkLocalRepository()
        let lease =
            publication.replacingHistory ? ["--force-with-lease=refs/heads/\(Self.branch):\(listing.revision ?? "")"] : []
        let pushed = try git.run(
            common + ["push", "--porcelain", "--quiet"] + lease + localPackCommand("--receive-pack", "receive-pack")
                + ["--", url, "\(Self.outgoing):refs/heads/\(Self.branch)"])
        if pushed.status == 0 { return true }
        let report = String(decoding: pushed.stdout, as: UTF8.self)
        if report.contains("[rejected]")
            && (report.contains("fetch first") || report.contains("non-fast-forward") || report.contains("stale info"))
        {
            return false
        }
        // Another machine's push updated the branch at the same moment: the same as moving first.
        if report.contains("[remote rejected]") && report.contains("failed to update ref") { return false }
        let said = String(decoding: pushed.stdout + pushed.stderr, as: UTF8.self)
        if said.contains("[remote rejected]") {
            let line = said.split(whereSeparator: \.isNewline).first { $0.contains("[remote rejected]") }.map(String.init) ?? ""
            // Porcelain: "!<TAB>from:to<TAB>[remote rejected] (reason)": only the reason is git's sentence.
            let reason = line.range(of: "[remote rejected]").map { String(line[$0.upperBound...]) } ?? line
            throw SyncError(
                .git,
                "The remote refused the push: \(reason.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "()")))."
            )
        }
        throw SyncError(.git, "git could not push to \(url): \(pushed.complaint)")
    }
}

extension GitRemote {
    /// A remote as sync keeps it: a path on this machine made absolute (a sync from another working
    /// directory must find it). nil for a form sync refuses: options, newlines, and git's
    /// `helper::address` forms (`ext::` runs a command, `fd::` reads descriptors).
    public static func canonical(_ url: String, currentDirectory: String) -> String? {
        guard !url.isEmpty, !url.hasPrefix("-"), !url.contains(where: \.isNewline) else { return nil }
        if let helper = url.range(of: "::"), !url[..<helper.lowerBound].contains("/") { return nil }
        let remote = GitRemote(url: url, repository: "", environment: [:])
        guard remote.isLocal, !url.hasPrefix("file://"), !url.hasPrefix("/") else { return url }
        let joined = URL(fileURLWithPath: currentDirectory).appendingPathComponent(url).standardizedFileURL.path
        return joined
    }

    /// The user's git (the first `git` on their PATH) for a remote at `url`, mirrored in `mirror`.
    public static func users(url: String, mirror: String, environment: [String: String]) throws -> any SyncRemote {
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where directory.hasPrefix("/") {
            let candidate = String(directory) + "/git"
            if access(candidate, X_OK) == 0 {
                return GitRemote(url: url, repository: mirror, gitExecutable: candidate, environment: environment)
            }
        }
        throw SyncError(.git, "Sync needs git, and none is on your PATH: install it (apt-get install git).")
    }
}

extension UInt8 {
    fileprivate var isASCIIWhitespace: Bool { self == 32 || self == 9 || self == 10 || self == 13 }
}
