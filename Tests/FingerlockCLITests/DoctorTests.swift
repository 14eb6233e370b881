import ArgumentParser
import Auth
import FingerlockTestSupport
import Fingerprint
import Foundation
import Testing

@testable import FingerlockCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `fingerlock doctor` against a fake sysfs/devfs/proc tree and injected probes. CI runs as root,
/// where access(2) never fails, so denials come from ``FakeNodeAccess``; everything else is real
/// file-system reading.
@Suite(.timed, .timeLimit(.minutes(1)))
struct DoctorTests {
    static let allIDs = [("06cb", "00bd"), ("06cb", "00df"), ("27c6", "5840")]

    /// A machine where fingerprint unlock works: rules installed, reader plugged in and accessible.
    static func healthy() throws -> DoctorFakeSystem {
        let system = try DoctorFakeSystem()
        try system.installRules(DoctorFakeSystem.rules(allIDs))
        try system.plug("06cb", "00bd", bus: 1, device: 4)
        try system.makeDirectory("home/alice/.local/share/fingerlock", mode: 0o700)
        try system.write("home/alice/.local/share/fingerlock/vault.sqlite", "x", mode: 0o600)
        return system
    }

    // MARK: - The whole report

    @Test("a healthy machine: every finding ok, exit 0, one line per finding")
    func healthyMachine() async throws {
        let system = try Self.healthy()
        let report = await system.run()
        #expect(
            report.findings.map(\.check) == [
                "fingerlock", "libfprint", "readers", "usb 06cb:00bd", "udev-rules", "fprintd", "keyring", "data-directory",
                "passcode",
                "enrolled", "session",
            ])
        #expect(report.findings.allSatisfy { $0.status == .ok && $0.fix == nil }, "\(report.findings)")
        #expect(report.exitStatus == 0)
        let lines = report.text().split(separator: "\n")
        #expect(lines.count == report.findings.count)
        #expect(lines.allSatisfy { $0.hasPrefix("[ok]      ") })
        #expect(
            lines[3]
                == "[ok]      usb 06cb:00bd: Reader 06cb:00bd Prometheus MIS Touch Fingerprint Reader (driver synaptics) at /dev/bus/usb/001/004: you can open it."
        )
    }

    @Test("warnings alone exit 0; any error exits 1, through the command too")
    func exitStatus() async throws {
        let system = try Self.healthy()
        system.readers = nil  // a warning: not wired
        #expect(await system.run().exitStatus == 0)
        system.environment["SSH_TTY"] = "/dev/pts/3"
        let report = await system.run()
        #expect(report.exitStatus == 1)
        #expect(report.findings.filter { $0.status == .error }.map(\.check) == ["session"])

        let command = try DoctorCommand.parse([])
        let (output, status) = await command.render(system.dependencies)
        #expect(status == 1)
        #expect(output.contains("[error]   session: Remote session (SSH_TTY is set)"))
        #expect(output.contains(" — fix: run fingerlock in a local session at the machine"))
    }

    @Test("--json prints an array of {check, status, message, fix} with fix null when ok")
    func json() async throws {
        let system = try Self.healthy()
        system.keyring = .unusable("add_key: Operation not permitted")
        let command = try DoctorCommand.parse(["--json"])
        #expect(command.json)
        let (output, status) = await command.render(system.dependencies)
        #expect(status == 1)
        let array = try #require(
            try JSONSerialization.jsonObject(with: Data(output.utf8), options: [.fragmentsAllowed]) as? [[String: Any]])
        #expect(array.count == 11)
        #expect(array.allSatisfy { Set($0.keys) == ["check", "status", "message", "fix"] })
        let keyring = try #require(array.first { $0["check"] as? String == "keyring" })
        #expect(keyring["status"] as? String == "error")
        #expect((keyring["message"] as? String)?.contains("add_key: Operation not permitted") == true)
        #expect((keyring["fix"] as? String)?.contains("add_key and keyctl system calls") == true)
        let session = try #require(array.first { $0["check"] as? String == "session" })
        #expect(session["status"] as? String == "ok")
        #expect(session["fix"] is NSNull)
        // Round trip through the model.
        let decoded = try JSONDecoder().decode([DoctorFinding].self, from: Data(output.utf8))
        #expect(decoded == (await system.run()).findings)
    }

    @Test("colour only when asked: status labels in green, yellow, red")
    func colour() async throws {
        let system = try Self.healthy()
        system.setup = nil
        system.keyring = .unusable("x")
        let report = await system.run()
        let coloured = report.text(color: true)
        #expect(coloured.contains("\u{1B}[32m[ok]\u{1B}[0m      libfprint"))
        #expect(coloured.contains("\u{1B}[33m[warning]\u{1B}[0m passcode"))
        #expect(coloured.contains("\u{1B}[31m[error]\u{1B}[0m   keyring"))
        #expect(!report.text().contains("\u{1B}"))
    }

    // MARK: - libfprint

    @Test("libfprint: version from the dpkg entry of the mapped library")
    func libfprintVersion() async throws {
        let system = try Self.healthy()
        let finding = try #require(await system.run().finding("libfprint"))
        #expect(finding.status == .ok)
        #expect(
            finding.message
                == "libfprint 1.94.5 (libfprint-2-2:amd64 1:1.94.5-1) loaded from /usr/lib/x86_64-linux-gnu/libfprint-2.so.2.0.0."
        )
    }

    @Test("libfprint: older than 1.94 is a warning with an upgrade fix")
    func libfprintOld() async throws {
        let system = try Self.healthy()
        try system.write(
            "dpkg/status",
            "Package: libfprint-2-2\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1:1.90.7-2\n")
        let finding = try #require(await system.run().finding("libfprint"))
        #expect(finding.status == .warning)
        #expect(finding.message.contains("libfprint 1.90.7"))
        #expect(finding.fix == "upgrade libfprint-2-2 (sudo apt install libfprint-2-2)")
    }

    @Test(
        "libfprint: a self-built library has an unknown version; a package that is not installed counts as unknown too")
    func libfprintUnknown() async throws {
        let system = try Self.healthy()
        try system.write(
            "proc/self/maps", "7f00-7f10 r--p 00000000 fe:01 1 /usr/local/lib/x86_64-linux-gnu/libfprint-2.so.2.0.0\n")
        var finding = try #require(await system.run().finding("libfprint"))
        #expect(finding.status == .ok)
        #expect(
            finding.message.contains(
                "/usr/local/lib/x86_64-linux-gnu/libfprint-2.so.2.0.0 (not from a Debian package; version unknown)"))

        try system.write(
            "proc/self/maps", "7f00-7f10 r--p 00000000 fe:01 1 /lib/x86_64-linux-gnu/libfprint-2.so.2.0.0\n")
        try system.write(
            "dpkg/status", "Package: libfprint-2-2\nStatus: deinstall ok config-files\nVersion: 1:1.94.5-1\n")
        finding = try #require(await system.run().finding("libfprint"))
        #expect(finding.message.contains("version unknown"))
    }

    @Test("libfprint: not mapped yet, the installed package's version; neither mapped nor installed, a warning")
    func libfprintNotLoaded() async throws {
        let system = try Self.healthy()
        try system.write("proc/self/maps", "7f00-7f10 r--p 00000000 fe:01 1 /usr/lib/x86_64-linux-gnu/libc.so.6\n")
        var finding = try #require(await system.run().finding("libfprint"))
        #expect(finding.status == .ok)
        #expect(finding.message == "libfprint 1.94.5 (libfprint-2-2 1:1.94.5-1) installed.")

        try system.write("dpkg/status", "Package: libfoo\nStatus: install ok installed\nVersion: 1\n")
        finding = try #require(await system.run().finding("libfprint"))
        #expect(finding.status == .warning)
        #expect(finding.fix == "sudo apt install libfprint-2-2")
    }

    // MARK: - Readers

    @Test("readers: listed, none, failing, or not wired")
    func readers() async throws {
        let system = try Self.healthy()
        #expect(await system.run().finding("readers")?.message == "1 reader found: synaptics:1 (Synaptics Sensors).")

        system.readers = { [] }
        var finding = try #require(await system.run().finding("readers"))
        #expect(finding.status == .error)
        #expect(finding.message == "No fingerprint reader found.")
        #expect(finding.fix == "unplug and replug the reader; if it persists, see `fingerlock readers`")

        try system.remove("sys/bus/usb/devices/1-4")
        finding = try #require(await system.run().finding("readers"))
        #expect(
            finding.fix
                == "plug in a USB reader libfprint supports (https://fprint.freedesktop.org/supported-devices.html)")

        try system.plug("06cb", "00bd", bus: 1, device: 4)
        system.denied = [system.path("dev/bus/usb/001/004")]
        finding = try #require(await system.run().finding("readers"))
        #expect(finding.fix == "give yourself access to the reader (see the usb finding)")

        system.readers = { throw FingerprintError(.deviceError, "libusb: access denied") }
        finding = try #require(await system.run().finding("readers"))
        #expect(finding.status == .error)
        #expect(finding.message.hasPrefix("Listing fingerprint readers failed: "))
        #expect(finding.fix == "give yourself access to the reader (see the usb finding)")

        system.readers = nil
        finding = try #require(await system.run().finding("readers"))
        #expect(finding.status == .warning)
        #expect(finding.fix == "run: fingerlock readers")
    }

    // MARK: - USB access

    @Test("usb: a denied reader without rules, with logind: install the uaccess rules")
    func deniedWithoutRules() async throws {
        let system = try Self.healthy()
        try system.remove("etc/udev/rules.d/70-fingerlock.rules")
        system.denied = [system.path("dev/bus/usb/001/004")]
        let report = await system.run()
        let finding = try #require(report.finding("usb 06cb:00bd"))
        #expect(finding.status == .error)
        #expect(finding.message.hasSuffix("at /dev/bus/usb/001/004: alice cannot open it."))
        #expect(
            finding.fix
                == "install fingerlock's udev rules: sudo make install (in the fingerlock source) or sudo install -m 0644 "
                + "udev/70-fingerlock.rules /etc/udev/rules.d/, then sudo udevadm control --reload && sudo udevadm trigger --subsystem-match=usb"
        )
        #expect(report.exitStatus == 1)
        #expect(report.finding("udev-rules")?.status == .warning)
    }

    @Test("usb: a denied reader without rules and without logind: the plugdev variant")
    func deniedWithoutLogind() async throws {
        let system = try Self.healthy()
        try system.remove("etc/udev/rules.d/70-fingerlock.rules")
        try system.remove("run/systemd/seats")
        system.denied = [system.path("dev/bus/usb/001/004")]
        let fix = try #require(await system.run().finding("usb 06cb:00bd")?.fix)
        #expect(fix.hasPrefix("systemd-logind is not running, so use the plugdev rules: "))
        #expect(fix.contains("UDEV_RULES=udev/70-fingerlock-plugdev.rules"))
        #expect(fix.contains("sudo usermod -aG plugdev alice"))
    }

    @Test("usb: installed uaccess rules that do not cover the reader: regenerate")
    func rulesLackID() async throws {
        let system = try Self.healthy()
        try system.installRules(DoctorFakeSystem.rules([("06cb", "00df")]))
        system.denied = [system.path("dev/bus/usb/001/004")]
        let report = await system.run()
        let fix = try #require(report.finding("usb 06cb:00bd")?.fix)
        #expect(fix.contains("70-fingerlock.rules predates this libfprint and lacks 06cb:00bd"))
        #expect(fix.hasSuffix("run make udev-rules && sudo make install (in the fingerlock source)"))
        let rules = try #require(report.finding("udev-rules"))
        #expect(rules.status == .warning)
        #expect(rules.message.contains("lacks 2 ids this libfprint supports (06cb:00bd, 27c6:5840…)"))
    }

    @Test(
        "usb: uaccess rules cover the reader but access is denied",
        arguments: [
            ("remote", "uaccess gives the reader only to the active local session: run fingerlock at the machine"),
            ("no-logind", "uses uaccess, which needs systemd-logind (not running): sudo make install UDEV_RULES="),
            (
                "local",
                "sudo udevadm control --reload && sudo udevadm trigger --subsystem-match=usb, or unplug and replug"
            ),
        ])
    func uaccessDenied(situation: String, fix: String) async throws {
        let system = try Self.healthy()
        system.denied = [system.path("dev/bus/usb/001/004")]
        if situation == "remote" { system.environment["SSH_CONNECTION"] = "10.0.0.2 52000 10.0.0.1 22" }
        if situation == "no-logind" { try system.remove("run/systemd/seats") }
        let finding = try #require(await system.run().finding("usb 06cb:00bd"))
        #expect(finding.status == .error)
        #expect(finding.fix?.contains(fix) == true, "\(finding.fix ?? "nil")")
    }

    @Test("usb: plugdev rules and a user outside plugdev: usermod; inside: reload")
    func plugdevRules() async throws {
        let system = try Self.healthy()
        try system.installRules(DoctorFakeSystem.rules(Self.allIDs, action: "GROUP=\"plugdev\", MODE=\"0660\""))
        system.denied = [system.path("dev/bus/usb/001/004")]
        var fix = try #require(await system.run().finding("usb 06cb:00bd")?.fix)
        #expect(fix == "sudo usermod -aG plugdev alice, then log out and back in")
        #expect(await system.run().finding("udev-rules")?.message.contains("(plugdev, 3 readers)") == true)

        system.user.groupIDs.insert(46)
        fix = try #require(await system.run().finding("usb 06cb:00bd")?.fix)
        #expect(
            fix
                == "sudo udevadm control --reload && sudo udevadm trigger --subsystem-match=usb, or unplug and replug the reader"
        )
    }

    @Test("usb: system-mode rules are recognised; the fix never adds the user to the service's group")
    func systemRules() async throws {
        let system = try Self.healthy()
        try system.installRules(DoctorFakeSystem.rules(Self.allIDs, action: "GROUP=\"fingerlockd\", MODE=\"0660\""))
        system.denied = [system.path("dev/bus/usb/001/004")]
        let fix = try #require(await system.run().finding("usb 06cb:00bd")?.fix)
        #expect(fix.contains("gives the reader to fingerlockd only (system-mode rules)"), "\(fix)")
        #expect(fix.contains("sudo make install"))
        #expect(!fix.contains("usermod"))
        #expect(await system.run().finding("udev-rules")?.message.contains("(system, 3 readers)") == true)
    }

    @Test("usb: a node whose group may read and write it names that group")
    func nodeGroup() async throws {
        let system = try Self.healthy()
        let node = system.path("dev/bus/usb/001/004")
        // As root, give the node group 4242; otherwise it has this process's group. The fake user is
        // in neither.
        if geteuid() == 0 { #expect(chown(node, uid_t.max, 4242) == 0) }
        try FileManager.default.setAttributes([.posixPermissions: 0o660], ofItemAtPath: node)
        system.denied = [node]
        let fix = try #require(await system.run().finding("usb 06cb:00bd")?.fix)
        #expect(fix == "sudo usermod -aG fingerprint-test alice, then log out and back in")

        // Group without write permission: no group fix, back to the rules.
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: node)
        let other = try #require(await system.run().finding("usb 06cb:00bd")?.fix)
        #expect(other.hasPrefix("sudo udevadm control --reload"))
    }

    @Test("usb: a missing device node is an error")
    func missingNode() async throws {
        let system = try Self.healthy()
        try system.plug("27c6", "5840", bus: 2, device: 7, node: false)
        let report = await system.run()
        let finding = try #require(report.finding("usb 27c6:5840"))
        #expect(finding.status == .error)
        #expect(finding.message.contains("(driver goodixmoc) at /dev/bus/usb/002/007: the device node is missing."))
        #expect(finding.fix == "check that udev is running and /dev is devtmpfs, then replug the reader")
        #expect(report.finding("usb 06cb:00bd")?.status == .ok)
    }

    @Test("usb: a node that cannot be checked is an error naming the reason")
    func failedNodeCheck() async throws {
        struct Broken: DeviceNodeAccess {
            func check(_ path: String) -> NodeAccess { .failed("Input/output error") }
        }
        let system = try Self.healthy()
        var dependencies = system.dependencies
        dependencies.nodeAccess = Broken()
        let finding = try #require(await Doctor(dependencies).run().finding("usb 06cb:00bd"))
        #expect(finding.status == .error)
        #expect(finding.message.hasSuffix("cannot check access (Input/output error)."))
    }

    @Test("usb: unsupported readers, other devices, interfaces and hubs")
    func otherDevices() async throws {
        let system = try DoctorFakeSystem()
        try system.plug("27c6", "538c", bus: 1, device: 2)  // known unsupported
        try system.plug("1d6b", "0002", bus: 1, device: 1, name: "usb1")  // root hub
        let report = await system.run()
        let usb = report.findings.filter { $0.check.hasPrefix("usb") }
        #expect(usb.map(\.check) == ["usb 27c6:538c", "usb"])
        #expect(usb[0].status == .warning)
        #expect(usb[0].message.contains("libfprint knows but does not support"))
        #expect(usb[1].message == "No attached USB device is a reader libfprint supports.")
        #expect(usb[1].fix == "plug in a supported reader (https://fprint.freedesktop.org/supported-devices.html)")
    }

    @Test("usb: no sysfs, or no hwdb, is a warning")
    func noSysfsOrHwdb() async throws {
        let system = try Self.healthy()
        try system.remove("sys")
        var finding = try #require(await system.run().finding("usb"))
        #expect(finding.status == .warning)
        #expect(finding.fix == "run fingerlock doctor on the machine the reader is plugged into")

        try system.remove("hwdb")
        finding = try #require(await system.run().finding("usb"))
        #expect(finding.status == .warning)
        #expect(finding.message.contains("device list"))
        #expect(finding.fix == "sudo apt install libfprint-2-2")
    }

    @Test("udev-rules: the first directory in udev's order wins")
    func rulesPrecedence() async throws {
        let system = try Self.healthy()
        try system.remove("etc/udev/rules.d/70-fingerlock.rules")
        try system.installRules(DoctorFakeSystem.rules(Self.allIDs), in: "usr/lib/udev/rules.d")
        try system.installRules(
            DoctorFakeSystem.rules(Self.allIDs, action: "GROUP=\"plugdev\", MODE=\"0660\""), in: "run/udev/rules.d")
        let finding = try #require(await system.run().finding("udev-rules"))
        #expect(finding.status == .ok)
        #expect(
            finding.message
                == "\(system.path("run/udev/rules.d/70-fingerlock.rules")) is installed (plugdev, 3 readers).")
    }

    // MARK: - fprintd

    @Test("fprintd: not running, running idle, running without visible fds, holding the reader")
    func fprintd() async throws {
        let system = try Self.healthy()
        #expect(await system.run().finding("fprintd")?.message == "fprintd is not running.")

        try system.spawn("bash", pid: 100, openFiles: ["/dev/bus/usb/001/004"])
        try system.spawn("fprintd", pid: 812, openFiles: ["/dev/null", "socket:[1234]"])
        var finding = try #require(await system.run().finding("fprintd"))
        #expect(finding.status == .ok)
        #expect(finding.message.contains("fprintd is running (pid 812) and does not hold the reader"))

        try system.remove("proc/812/fd")
        finding = try #require(await system.run().finding("fprintd"))
        #expect(finding.status == .ok)
        #expect(finding.message.contains("visible only to root"))

        try system.spawn("fprintd", pid: 900, openFiles: ["/dev/null", "/dev/bus/usb/001/004"])
        let report = await system.run()
        finding = try #require(report.finding("fprintd"))
        #expect(finding.status == .error)
        #expect(
            finding.message == "fprintd (pid 900) holds the reader at /dev/bus/usb/001/004, so fingerlock gets 'busy'.")
        #expect(finding.fix?.contains("sudo systemctl stop fprintd") == true)
        #expect(report.exitStatus == 1)
    }

    // MARK: - Keyring

    @Test("keyring: an unusable keyring blocks fingerprint unlock")
    func keyring() async throws {
        let system = try Self.healthy()
        system.keyring = .unusable("add_key: Function not implemented")
        let report = await system.run()
        let finding = try #require(report.finding("keyring"))
        #expect(finding.status == .error)
        #expect(finding.message.contains("(add_key: Function not implemented)"))
        #expect(report.exitStatus == 1)
    }

    @Test("keyring: the real probe adds, reads and invalidates a key in @u")
    func realKeyring() {
        #expect(KernelKeyringProbe().probe() == .usable)
    }

    // MARK: - Data directory

    @Test("data-directory: missing is fine; too open, a file too open, or not a directory is an error")
    func dataDirectory() async throws {
        let system = try DoctorFakeSystem()
        let directory = system.path("home/alice/.local/share/fingerlock")
        var finding = try #require(await system.run().finding("data-directory"))
        #expect(finding.status == .ok)
        #expect(finding.message.contains("does not exist yet"))

        try system.makeDirectory("home/alice/.local/share/fingerlock", mode: 0o755)
        finding = try #require(await system.run().finding("data-directory"))
        #expect(finding.status == .error)
        #expect(finding.message == "\(directory) is accessible to other users (mode 755).")
        #expect(finding.fix == "chmod 700 '\(directory)'")

        try system.makeDirectory("home/alice/.local/share/fingerlock", mode: 0o700)
        try system.write("home/alice/.local/share/fingerlock/prints.json", "{}", mode: 0o644)
        try system.write("home/alice/.local/share/fingerlock/vault.sqlite", "x", mode: 0o600)
        let findings = await system.run().findings("data-directory")
        #expect(findings.count == 1)
        #expect(findings.first?.fix == "chmod 600 '\(directory)/prints.json'")

        try system.remove("home/alice/.local/share/fingerlock")
        try system.write("home/alice/.local/share/fingerlock", "not a directory")
        finding = try #require(await system.run().finding("data-directory"))
        #expect(finding.status == .error)
        #expect(finding.message == "\(directory) is not a directory.")
        #expect(finding.fix == "move '\(directory)' out of the way; fingerlock needs a directory there")
    }

    @Test("data-directory: one owned by another user is refused")
    func dataDirectoryNotOwned() async throws {
        let system = try DoctorFakeSystem()
        if geteuid() == 0 {
            // As root (CI), hand the directory to nobody.
            try system.makeDirectory("data", mode: 0o700)
            #expect(chown(system.path("data"), 65534, 65534) == 0)
            system.dataDirectory = system.path("data")
        } else {
            system.dataDirectory = "/var"  // owned by root, never by a normal user
        }
        let finding = try #require(await system.run().finding("data-directory"))
        #expect(finding.status == .error)
        #expect(finding.message.hasSuffix("belongs to another user; fingerlock will not use it."))
        #expect(finding.fix?.hasPrefix("sudo chown alice '") == true)
    }

    @Test("data-directory: without HOME there is none")
    func noDataDirectory() async throws {
        let system = try DoctorFakeSystem()
        system.dataDirectory = nil
        let finding = try #require(await system.run().finding("data-directory"))
        #expect(finding.status == .error)
        #expect(finding.fix == "set HOME, XDG_DATA_HOME or FINGERLOCK_DATA_DIR, or pass --data-dir")
        #expect(throws: CLIError.self) { try GlobalOptions.parse([]).dataDirectory([:]) }
        #expect(try GlobalOptions.parse([]).dataDirectory(["HOME": "/h"]) == "/h/.local/share/fingerlock")
        #expect(try GlobalOptions.parse([]).dataDirectory(["HOME": "/h", "XDG_DATA_HOME": "/x"]) == "/x/fingerlock")
        #expect(try GlobalOptions.parse([]).dataDirectory(["HOME": "/h", "XDG_DATA_HOME": "rel"]) == "/h/.local/share/fingerlock")
        #expect(try GlobalOptions.parse([]).dataDirectory(["FINGERLOCK_DATA_DIR": "/d", "XDG_DATA_HOME": "/x"]) == "/d")
        #expect(try GlobalOptions.parse(["--data-dir", "/flag"]).dataDirectory(["FINGERLOCK_DATA_DIR": "/d"]) == "/flag")
    }

    // MARK: - Passcode and fingers

    @Test("passcode and enrolled: each missing piece is an error with the command that fixes it")
    func setup() async throws {
        let system = try Self.healthy()
        system.setup = { SetupStatus(passcodeSet: false, enrolledFingers: []) }
        var report = await system.run()
        #expect(report.finding("passcode")?.status == .error)
        #expect(report.finding("passcode")?.fix == "fingerlock passcode set")
        #expect(report.finding("enrolled")?.fix == "fingerlock passcode set, then fingerlock enroll right-index-finger")
        #expect(report.exitStatus == 1)

        system.setup = { SetupStatus(passcodeSet: true, enrolledFingers: []) }
        report = await system.run()
        #expect(report.finding("passcode")?.status == .ok)
        #expect(report.finding("enrolled")?.status == .error)
        #expect(report.finding("enrolled")?.fix == "fingerlock enroll right-index-finger")

        system.setup = { SetupStatus(passcodeSet: true, enrolledFingers: ["left-thumb on a:1", "right-thumb on a:1"]) }
        report = await system.run()
        #expect(report.finding("enrolled")?.message == "2 fingers enrolled: left-thumb on a:1, right-thumb on a:1.")
        #expect(report.exitStatus == 0)

        system.setup = { throw FingerprintError(.deviceError, "vault header is corrupt") }
        report = await system.run()
        #expect(report.finding("passcode")?.status == .error)
        #expect(report.finding("passcode")?.message.hasPrefix("The vault cannot be read: ") == true)
        #expect(report.finding("enrolled") == nil)

        system.setup = nil
        report = await system.run()
        #expect(report.finding("passcode")?.status == .warning)
    }

    // MARK: - Session

    @Test(
        "session: any of sshd's variables makes it remote",
        arguments: ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"])
    func remoteSession(variable: String) async throws {
        let system = try Self.healthy()
        system.environment[variable] = "x"
        let report = await system.run()
        let finding = try #require(report.finding("session"))
        #expect(finding.status == .error)
        #expect(finding.message.contains("(\(variable) is set)"))
        #expect(report.exitStatus == 1)
    }

    @Test("session: an empty SSH variable does not count")
    func emptySSHVariable() async throws {
        let system = try Self.healthy()
        system.environment["SSH_TTY"] = ""
        #expect(await system.run().finding("session")?.status == .ok)
    }
}

/// The parts that read the real machine: libfprint's installed hwdb and this process's libfprint.
@Suite(.timed, .timeLimit(.minutes(1)))
struct DoctorSystemTests {
    @Test("the runtime hwdb parser agrees with the committed udev rules")
    func hwdbMatchesRules() throws {
        let hwdb = try LibfprintHwdb(contentsOfFile: LibfprintHwdb.defaultPath)
        #expect(hwdb.supported.count > 100)
        #expect(hwdb.unsupported.count > 50)
        #expect(Set(hwdb.supported.keys).isDisjoint(with: hwdb.unsupported))
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let rules = try String(contentsOf: repo.appendingPathComponent("udev/70-fingerlock.rules"), encoding: .utf8)
        let installed = InstalledUdevRules.parse(rules, path: "70-fingerlock.rules")
        #expect(installed.variant == .uaccess)
        #expect(installed.ids == Set(hwdb.supported.keys))
        let plugdev = try String(
            contentsOf: repo.appendingPathComponent("udev/70-fingerlock-plugdev.rules"), encoding: .utf8)
        #expect(InstalledUdevRules.parse(plugdev, path: "p").variant == .plugdev)
    }

    @Test("the real /proc: this process is found by its comm, and its open files are listed")
    func realProcessTable() throws {
        let table = ProcessTable(procRoot: "/proc")
        let comm = try #require(PseudoFile.read("/proc/self/comm")).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!comm.isEmpty)
        #expect(table.processIDs(named: comm).contains(Int(getpid())))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fingerlock-fd-\(UUID().uuidString)")
        try Data().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        let open = try #require(table.openFiles(of: Int(getpid())))
        #expect(open.contains(file.path))
    }

    @Test("USBID parses and prints sysfs's lower-case hex")
    func usbID() {
        #expect(USBID(vendor: "06CB", product: "00bd")?.description == "06cb:00bd")
        #expect(USBID(vendor: "6cb", product: "00bd") == nil)
        #expect(USBID(vendor: "zzzz", product: "00bd") == nil)
        #expect(USBID(vendor: 0x06CB, product: 0x00BD) < USBID(vendor: 0x06CB, product: 0x00DF))
    }

    /// The executable uses libfprint from its first command; the test process links it but may not
    /// map it until something calls it, so load it as the executable would.
    static func loadLibfprint() throws {
        let handle = dlopen("libfprint-2.so.2", RTLD_NOW)
        try #require(handle != nil, "libfprint-2.so.2 cannot be loaded")
    }

    @Test("the real system: libfprint found in this process with the dpkg version")
    func realLibfprint() throws {
        try Self.loadLibfprint()
        let found = try #require(LibfprintInstallation.locate(procRoot: "/proc", dpkgRoot: "/var/lib/dpkg"))
        #expect(found.path.hasSuffix("libfprint-2.so.2.0.0"))
        #expect(found.package?.hasPrefix("libfprint-2-2") == true)
        #expect(found.upstreamVersion == "1.94.5")
    }

    @Test("the real system: doctor runs end to end and every non-ok finding has a fix")
    func realSystem() async throws {
        try Self.loadLibfprint()
        let dependencies = DoctorDependencies.system(
            environment: ["HOME": "/nonexistent-home"], dataDirectory: "/nonexistent-home/.local/share/fingerlock",
            listReaders: { [] }, setupStatus: { SetupStatus(passcodeSet: false, enrolledFingers: []) })
        let report = await Doctor(dependencies).run()
        #expect(report.finding("libfprint")?.status == .ok)
        #expect(report.finding("keyring")?.status == .ok)
        #expect(report.findings.filter { $0.status != .ok }.allSatisfy { $0.fix != nil })
        #expect(report.exitStatus == 1)  // no reader, no passcode
    }
}
