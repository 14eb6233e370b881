import Foundation
import Testing

/// `make install` / `make uninstall` with a stand-in binary, so no release build is needed.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct InstallTests {
    /// A scratch tree holding the fake binary, the fake man page and the staging root.
    struct Scratch {
        let root: URL
        var destdir: URL { root.appendingPathComponent("dest") }
        var bin: URL { root.appendingPathComponent("fake-fingerlock") }
        var manpage: URL { root.appendingPathComponent("fingerlock.1") }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent(
                "fingerlock-install-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            // Answers like swift-argument-parser's `--generate-completion-script SHELL`.
            try Self.script(
                at: bin,
                """
                #!/bin/sh
                if [ "$1" = --generate-completion-script ]; then echo "completion for $2"; exit 0; fi
                exit 3
                """)
            try ".TH FINGERLOCK 1\n".write(to: manpage, atomically: false, encoding: .utf8)
        }

        static func script(at url: URL, _ text: String) throws {
            try (text + "\n").write(to: url, atomically: false, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        }

        func remove() { try? FileManager.default.removeItem(at: root) }

        /// Every regular file under `directory`, relative, with its permission bits.
        func files(under directory: URL) throws -> [String: Int] {
            var result: [String: Int] = [:]
            guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return result }
            while let relative = walker.nextObject() as? String {
                let path = directory.appendingPathComponent(relative).path
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
                result[relative] = (attributes[.posixPermissions] as? NSNumber)?.intValue
            }
            return result
        }

        func make(_ target: String, _ variables: [String]) throws -> ProcessResult {
            try ProcessResult.run(
                "make", ["--no-print-directory", "-C", RepoPaths.root().path, target] + variables,
                in: RepoPaths.root())
        }

        func read(_ relative: String) throws -> String {
            try String(contentsOf: destdir.appendingPathComponent(relative), encoding: .utf8)
        }
    }

    static let defaultLayout: [String: Int] = [
        "usr/local/bin/fingerlock": 0o755,
        "usr/local/share/man/man1/fingerlock.1": 0o644,
        "usr/local/share/bash-completion/completions/fingerlock": 0o644,
        "usr/local/share/zsh/site-functions/_fingerlock": 0o644,
        "usr/local/share/fish/vendor_completions.d/fingerlock.fish": 0o644,
        "etc/udev/rules.d/70-fingerlock.rules": 0o644,
    ]

    @Test("make install DESTDIR=… installs exactly the expected files with the expected modes; uninstall removes them")
    func installAndUninstall() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let variables = [
            "DESTDIR=\(scratch.destdir.path)", "BIN=\(scratch.bin.path)", "MANPAGE=\(scratch.manpage.path)",
        ]
        let install = try scratch.make("install", variables)
        try #require(install.status == 0, "\(install.stderr)")
        #expect(try scratch.files(under: scratch.destdir) == Self.defaultLayout)
        #expect(install.stdout.contains("udev: reload skipped (DESTDIR is set)."))

        #expect(try scratch.read("usr/local/share/bash-completion/completions/fingerlock") == "completion for bash\n")
        #expect(try scratch.read("usr/local/share/zsh/site-functions/_fingerlock") == "completion for zsh\n")
        #expect(
            try scratch.read("usr/local/share/fish/vendor_completions.d/fingerlock.fish") == "completion for fish\n")
        #expect(try scratch.read("usr/local/share/man/man1/fingerlock.1") == ".TH FINGERLOCK 1\n")
        let rules = try String(contentsOf: RepoPaths.uaccessRules, encoding: .utf8)
        #expect(try scratch.read("etc/udev/rules.d/70-fingerlock.rules") == rules)
        #expect(
            FileManager.default.contentsEqual(
                atPath: scratch.bin.path,
                andPath: scratch.destdir.appendingPathComponent("usr/local/bin/fingerlock").path))

        let uninstall = try scratch.make("uninstall", variables)
        try #require(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(try scratch.files(under: scratch.destdir).isEmpty)
        #expect(uninstall.stdout.contains("udev: reload skipped (DESTDIR is set)."))
    }

    @Test("PREFIX moves the binary, man page and completions but never the udev rules; UDEVRULESDIR and UDEV_RULES do")
    func prefixAndRulesDirectory() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let install = try scratch.make(
            "install",
            [
                "DESTDIR=\(scratch.destdir.path)", "BIN=\(scratch.bin.path)", "MANPAGE=\(scratch.manpage.path)",
                "PREFIX=/opt/fl",
            ])
        try #require(install.status == 0, "\(install.stderr)")
        let expected = Dictionary(
            uniqueKeysWithValues: Self.defaultLayout.map {
                ($0.key.replacingOccurrences(of: "usr/local/", with: "opt/fl/"), $0.value)
            })
        #expect(try scratch.files(under: scratch.destdir) == expected)
        #expect(expected["etc/udev/rules.d/70-fingerlock.rules"] == 0o644)

        let other = try Scratch()
        defer { other.remove() }
        let plugdev = try other.make(
            "install",
            [
                "DESTDIR=\(other.destdir.path)", "BIN=\(other.bin.path)", "MANPAGE=\(other.manpage.path)",
                "UDEVRULESDIR=/usr/lib/udev/rules.d", "UDEV_RULES=udev/70-fingerlock-plugdev.rules",
            ])
        try #require(plugdev.status == 0, "\(plugdev.stderr)")
        let installed = try other.read("usr/lib/udev/rules.d/70-fingerlock.rules")
        #expect(installed == (try String(contentsOf: RepoPaths.plugdevRules, encoding: .utf8)))
        #expect(try other.files(under: other.destdir).keys.filter { $0.hasPrefix("etc/") }.isEmpty)
    }

    @Test("install refuses to run without a built binary or man page, and installs nothing")
    func missingInputs() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let noBinary = try scratch.make(
            "install",
            ["DESTDIR=\(scratch.destdir.path)", "BIN=/nonexistent/fingerlock", "MANPAGE=\(scratch.manpage.path)"])
        #expect(noBinary.status != 0)
        #expect(noBinary.stderr.contains("/nonexistent/fingerlock is missing; run 'make' first"))
        let noManual = try scratch.make(
            "install", ["DESTDIR=\(scratch.destdir.path)", "BIN=\(scratch.bin.path)", "MANPAGE=/nonexistent/x.1"])
        #expect(noManual.status != 0)
        #expect(noManual.stderr.contains("run 'make man' first"))
        #expect(!FileManager.default.fileExists(atPath: scratch.destdir.path))
    }

    @Test("a failing completion generator fails the install")
    func failingCompletion() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Scratch.script(at: scratch.bin, "#!/bin/sh\nexit 3")
        let result = try scratch.make(
            "install",
            ["DESTDIR=\(scratch.destdir.path)", "BIN=\(scratch.bin.path)", "MANPAGE=\(scratch.manpage.path)"])
        #expect(result.status != 0)
        #expect(
            !FileManager.default.fileExists(
                atPath: scratch.destdir.appendingPathComponent("usr/local/share/zsh/site-functions/_fingerlock").path))
    }

    /// Without DESTDIR the real root is the target, so every directory is pointed into the scratch
    /// tree and udevadm is a stand-in that records its arguments. CI runs as root; run by a normal
    /// user, the same test checks the "not root" branch instead.
    @Test(
        "without DESTDIR: udev is reloaded and triggered only as root and when udevd answers", arguments: [true, false])
    func udevReload(udevdRunning: Bool) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let log = scratch.root.appendingPathComponent("udevadm.log")
        let udevadm = scratch.root.appendingPathComponent("udevadm")
        try Scratch.script(
            at: udevadm,
            """
            #!/bin/sh
            echo "$*" >> '\(log.path)'
            if [ "$1 $2" = "control --ping" ]; then exit \(udevdRunning ? 0 : 1); fi
            exit 0
            """)
        let variables = [
            "BIN=\(scratch.bin.path)", "MANPAGE=\(scratch.manpage.path)", "PREFIX=\(scratch.destdir.path)/usr",
            "UDEVRULESDIR=\(scratch.destdir.path)/rules.d", "UDEVADM=\(udevadm.path)",
        ]
        let install = try scratch.make("install", variables)
        try #require(install.status == 0, "\(install.stderr)")
        let calls = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n")
        if getuid() != 0 {
            #expect(calls.isEmpty)
            #expect(install.stdout.contains("udev: reload skipped (not root); run: sudo"))
        } else if udevdRunning {
            #expect(calls == ["control --ping", "control --reload", "trigger --subsystem-match=usb"])
            #expect(install.stdout.contains("udev: rules reloaded and USB devices re-triggered."))
        } else {
            #expect(calls == ["control --ping"])
            #expect(install.stdout.contains("udev: reload skipped (no running udevd"))
        }
        #expect(try scratch.files(under: scratch.destdir).count == 6)
    }
}
