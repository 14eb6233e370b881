import FingerlockTestSupport
import Foundation
import Testing

/// `make install` / `make uninstall`, and the man page and completions `make` writes, with a
/// stand-in binary and man page writer, so no release build is needed (`SWIFT=:` skips the builds).
@Suite(.timed, .serialized, .timeLimit(.minutes(1)))
struct InstallTests {
    /// A scratch tree holding the fake binary, the fake man page and completions, and the staging root.
    struct Scratch {
        let root: URL
        var destdir: URL { root.appendingPathComponent("dest") }
        var bin: URL { root.appendingPathComponent("fake-fingerlock") }
        var daemon: URL { root.appendingPathComponent("fake-fingerlockd") }
        var manpage: URL { root.appendingPathComponent("fingerlock.1") }
        var completions: URL { root.appendingPathComponent("completions") }
        /// What `make install` needs: everything from this scratch tree.
        var installVariables: [String] {
            [
                "DESTDIR=\(destdir.path)", "BIN=\(bin.path)", "DAEMON_BIN=\(daemon.path)", "MANPAGE=\(manpage.path)",
                "COMPLETIONS=\(completions.path)",
            ]
        }

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
            try Self.script(at: daemon, "#!/bin/sh\nexit 0")
            try ".TH FINGERLOCK 1\n".write(to: manpage, atomically: false, encoding: .utf8)
            try FileManager.default.createDirectory(at: completions, withIntermediateDirectories: true)
            for shell in ["bash", "zsh", "fish"] {
                try "completion for \(shell)\n".write(
                    to: completions.appendingPathComponent("fingerlock.\(shell)"), atomically: false, encoding: .utf8)
            }
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

        func make(_ target: String, _ variables: [String]) async throws -> ProcessResult {
            try await ProcessResult.run(
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
        "usr/local/share/man/man8/fingerlockd.8": 0o644,
        "usr/local/share/bash-completion/completions/fingerlock": 0o644,
        "usr/local/share/zsh/site-functions/_fingerlock": 0o644,
        "usr/local/share/fish/vendor_completions.d/fingerlock.fish": 0o644,
        "etc/udev/rules.d/70-fingerlock.rules": 0o644,
        "usr/local/bin/fingerlockd": 0o755,
        "usr/local/lib/systemd/system/fingerlockd.socket": 0o644,
        "usr/local/lib/systemd/system/fingerlockd.service": 0o644,
        "usr/local/lib/sysusers.d/fingerlockd.conf": 0o644,
        // polkitd never reads /usr/local either.
        "usr/share/polkit-1/rules.d/50-fingerlockd-fprintd.rules": 0o644,
    ]

    @Test("make install DESTDIR=… installs exactly the expected files with the expected modes; uninstall removes them")
    func installAndUninstall() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let variables = scratch.installVariables
        let install = try await scratch.make("install", variables)
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
        let polkitRule = try String(contentsOf: RepoPaths.polkitRule, encoding: .utf8)
        #expect(try scratch.read("usr/share/polkit-1/rules.d/50-fingerlockd-fprintd.rules") == polkitRule)
        #expect(
            FileManager.default.contentsEqual(
                atPath: scratch.bin.path,
                andPath: scratch.destdir.appendingPathComponent("usr/local/bin/fingerlock").path))
        #expect(try scratch.read("usr/local/lib/systemd/system/fingerlockd.service").contains("\nExecStart=/usr/local/bin/fingerlockd\n"))

        let uninstall = try await scratch.make("uninstall", variables)
        try #require(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(try scratch.files(under: scratch.destdir).isEmpty)
        #expect(uninstall.stdout.contains("udev: reload skipped (DESTDIR is set)."))
    }

    @Test("PREFIX moves the binary, man page and completions but never the udev or polkit rules; UDEVRULESDIR and UDEV_RULES do")
    func prefixAndRulesDirectory() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let install = try await scratch.make(
            "install",
            scratch.installVariables + ["PREFIX=/opt/fl"])
        try #require(install.status == 0, "\(install.stderr)")
        let expected = Dictionary(
            uniqueKeysWithValues: Self.defaultLayout.map {
                ($0.key.replacingOccurrences(of: "usr/local/", with: "opt/fl/"), $0.value)
            })
        #expect(try scratch.files(under: scratch.destdir) == expected)
        #expect(expected["etc/udev/rules.d/70-fingerlock.rules"] == 0o644)
        #expect(expected["usr/share/polkit-1/rules.d/50-fingerlockd-fprintd.rules"] == 0o644)
        // The service unit starts the binary where PREFIX put it.
        #expect(try scratch.read("opt/fl/lib/systemd/system/fingerlockd.service").contains("\nExecStart=/opt/fl/bin/fingerlockd\n"))

        let other = try Scratch()
        defer { other.remove() }
        let plugdev = try await other.make(
            "install",
            other.installVariables + [
                "UDEVRULESDIR=/usr/lib/udev/rules.d", "UDEV_RULES=udev/70-fingerlock-plugdev.rules",
            ])
        try #require(plugdev.status == 0, "\(plugdev.stderr)")
        let installed = try other.read("usr/lib/udev/rules.d/70-fingerlock.rules")
        #expect(installed == (try String(contentsOf: RepoPaths.plugdevRules, encoding: .utf8)))
        #expect(try other.files(under: other.destdir).keys.filter { $0.hasPrefix("etc/") }.isEmpty)
    }

    @Test("make install-system installs the system-mode rules as 70-fingerlock.rules, with the service's units")
    func installSystem() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let install = try await scratch.make("install-system", scratch.installVariables)
        try #require(install.status == 0, "\(install.stderr)")
        #expect(try scratch.files(under: scratch.destdir) == Self.defaultLayout)
        let installed = try scratch.read("etc/udev/rules.d/70-fingerlock.rules")
        #expect(installed == (try String(contentsOf: RepoPaths.systemRules, encoding: .utf8)))
        #expect(!installed.contains("uaccess\""))
        #expect(try scratch.read("usr/local/lib/systemd/system/fingerlockd.socket").contains("ListenStream="))
        #expect(try scratch.read("usr/local/lib/sysusers.d/fingerlockd.conf").contains("\nu fingerlockd "))
        let uninstall = try await scratch.make("uninstall", scratch.installVariables)
        try #require(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(try scratch.files(under: scratch.destdir).isEmpty)
    }

    @Test("install refuses to run without a built binary, man page or completions, and installs nothing")
    func missingInputs() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let noBinary = try await scratch.make("install", scratch.installVariables + ["BIN=/nonexistent/fingerlock"])
        #expect(noBinary.status != 0)
        #expect(noBinary.stderr.contains("/nonexistent/fingerlock is missing; run 'make' first"))
        let noDaemon = try await scratch.make("install", scratch.installVariables + ["DAEMON_BIN=/nonexistent/fingerlockd"])
        #expect(noDaemon.status != 0)
        #expect(noDaemon.stderr.contains("/nonexistent/fingerlockd is missing; run 'make' first"))
        let noManual = try await scratch.make("install", scratch.installVariables + ["MANPAGE=/nonexistent/x.1"])
        #expect(noManual.status != 0)
        #expect(noManual.stderr.contains("/nonexistent/x.1 is missing; run 'make' first"))
        try FileManager.default.removeItem(at: scratch.completions.appendingPathComponent("fingerlock.zsh"))
        let noCompletion = try await scratch.make("install", scratch.installVariables)
        #expect(noCompletion.status != 0)
        #expect(noCompletion.stderr.contains("completions/fingerlock.zsh is missing; run 'make' first"))
        #expect(!FileManager.default.fileExists(atPath: scratch.destdir.path))
    }

    @Test("make writes the completions from the binary, for bash, zsh and fish")
    func completionsFromTheBinary() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let output = scratch.root.appendingPathComponent("generated")
        let result = try await scratch.make("completions", ["SWIFT=:", "BIN=\(scratch.bin.path)", "COMPLETIONS=\(output.path)"])
        try #require(result.status == 0, "\(result.stderr)")
        #expect(Set(try scratch.files(under: output).keys) == ["fingerlock.bash", "fingerlock.zsh", "fingerlock.fish"])
        for shell in ["bash", "zsh", "fish"] {
            let text = try String(contentsOf: output.appendingPathComponent("fingerlock.\(shell)"), encoding: .utf8)
            #expect(text == "completion for \(shell)\n")
        }
    }

    @Test("a failing completion generator fails make and leaves no completion file")
    func failingCompletion() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Scratch.script(at: scratch.bin, "#!/bin/sh\nexit 3")
        let output = scratch.root.appendingPathComponent("generated")
        let result = try await scratch.make("completions", ["SWIFT=:", "BIN=\(scratch.bin.path)", "COMPLETIONS=\(output.path)"])
        #expect(result.status != 0)
        #expect(try scratch.files(under: output).keys.filter { !$0.hasSuffix(".tmp") }.isEmpty)
    }

    @Test("make writes the man page with swift-argument-parser's generator, run on the binary")
    func manPageFromTheBinary() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let generator = scratch.root.appendingPathComponent("generate-manual")
        // Answers like generate-manual with `--output-directory -`: the page on stdout.
        // Every command's list repeats the global options, and the page ends with the generator's own EXIT STATUS.
        let option = ".It Fl -reader Ar reader\nWhich reader.\n"
        try Scratch.script(
            at: generator,
            "#!/bin/sh\necho \".Dt FINGERLOCK 1 from $*\"\nprintf '\(option).It Em status\\n\(option).It Fl -json\\nJSON.\\n'\n"
                + "printf '.Sh \"EXIT STATUS\"\\n.Ex -std\\n'")
        let page = scratch.root.appendingPathComponent("generated/fingerlock.1")
        let variables = [
            "SWIFT=:", "BIN=\(scratch.bin.path)", "GENERATE_MANUAL=\(generator.path)", "MANPAGE=\(page.path)",
            "MANDATE=2025-01-02",
        ]
        let result = try await scratch.make("man", variables)
        try #require(result.status == 0, "\(result.stderr)")
        let sections = try String(contentsOf: RepoPaths.root().appendingPathComponent("docs/man/fingerlock.1.sections"), encoding: .utf8)
        #expect(
            try String(contentsOf: page, encoding: .utf8)
                == ".Dt FINGERLOCK 1 from \(scratch.bin.path) --date 2025-01-02 --output-directory -\n" + option
                + ".It Em status\n.It Fl -json\nJSON.\n" + sections)
        for section in ["EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO"] {
            #expect(sections.contains(".Sh \(section)") || sections.contains(".Sh \"\(section)\""), "\(section)")
        }

        try Scratch.script(at: generator, "#!/bin/sh\nexit 2")
        try FileManager.default.removeItem(at: page)
        let failed = try await scratch.make("man", variables)
        #expect(failed.status != 0)
        #expect(!FileManager.default.fileExists(atPath: page.path))
    }

    /// Without DESTDIR the real root is the target, so every directory is pointed into the scratch
    /// tree and udevadm is a stand-in that records its arguments. CI runs as root; run by a normal
    /// user, the same test checks the "not root" branch instead.
    @Test(
        "without DESTDIR: udev is reloaded and triggered only as root and when udevd answers", arguments: [true, false])
    func udevReload(udevdRunning: Bool) async throws {
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
            "BIN=\(scratch.bin.path)", "DAEMON_BIN=\(scratch.daemon.path)", "MANPAGE=\(scratch.manpage.path)",
            "COMPLETIONS=\(scratch.completions.path)", "PREFIX=\(scratch.destdir.path)/usr",
            "UDEVRULESDIR=\(scratch.destdir.path)/rules.d", "UDEVADM=\(udevadm.path)",
            // Never the machine's polkit directory.
            "POLKITRULESDIR=\(scratch.destdir.path)/polkit-rules.d",
        ]
        let install = try await scratch.make("install", variables)
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
        #expect(try scratch.files(under: scratch.destdir).count == Self.defaultLayout.count)
    }
}
