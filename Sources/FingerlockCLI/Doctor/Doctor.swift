import Auth
import AuthCore
import Fingerprint
import Foundation
import SafeFiles
import Vault

/// `fingerlock doctor`: checks everything fingerprint unlock depends on and says, for each problem,
/// the one thing that fixes it.
public struct Doctor: Sendable {
    let dependencies: DoctorDependencies

    public init(_ dependencies: DoctorDependencies) {
        self.dependencies = dependencies
    }

    /// Runs every check; findings come in a fixed order, from the library up to the session.
    public func run() async -> DoctorReport {
        let hwdb = try? LibfprintHwdb(contentsOfFile: dependencies.hwdbPath)
        let rules = InstalledUdevRules.find(in: dependencies.udevRulesDirectories)
        let usb = usbFindings(hwdb: hwdb, rules: rules)
        // Which fingerlock wrote the report: the first thing to ask of one pasted into a bug report.
        var findings: [DoctorFinding] = [.ok("fingerlock", FingerlockVersion.line + ".")]
        // Listing the readers opens libfprint (loaded on first use), so it runs first and the library
        // check can name the file really mapped; the report keeps the library first.
        // The vault first (reported later): one that takes fprintd's fingers needs no reader here.
        let setup = await setupFindings()
        let readers = await readersFinding(usb: usb, fprintdKeepsTheFingers: setup.takesFprintd)
        findings.append(libfprintFinding())
        findings.append(readers)
        findings += usb.findings
        findings.append(udevRulesFinding(rules, hwdb: hwdb))
        findings.append(fprintdFinding(readerNodes: usb.readerNodes))
        findings.append(keyringFinding())
        findings += dataDirectoryFindings()
        findings += setup.findings
        if let fprintd = await fprintdFingersFinding(vaultTakesThem: setup.takesFprintd, accepted: setup.accepted) {
            findings.append(fprintd)
        }
        findings += serviceFindings()
        if let tpm = dependencies.tpm { findings.append(tpmFinding(tpm())) }
        findings.append(sessionFinding())
        return DoctorReport(findings: findings)
    }

    // MARK: - libfprint

    /// The oldest libfprint fingerlock is built and tested against.
    static let minimumLibfprint = [1, 94]

    func libfprintFinding() -> DoctorFinding {
        let mapped = LibfprintInstallation.locate(procRoot: dependencies.procRoot, dpkgRoot: dependencies.dpkgRoot)
        // Not mapped (yet): the library is loaded on first use, so fall back to what dpkg has installed.
        let installed = LibfprintInstallation.installedVersion(of: "libfprint-2-2", dpkgRoot: dependencies.dpkgRoot)
            .map { LibfprintInstallation(path: "", package: "libfprint-2-2", packageVersion: $0) }
        guard let found = mapped ?? installed else {
            return .warning(
                "libfprint", "libfprint-2 is neither loaded in this process nor installed as a Debian package.",
                fix: "sudo apt install libfprint-2-2")
        }
        guard let version = found.upstreamVersion, let package = found.package, let full = found.packageVersion else {
            return .ok("libfprint", "libfprint loaded from \(found.path) (not from a Debian package; version unknown).")
        }
        let numbers = version.split(separator: ".").map { Int($0.prefix { $0.isNumber }) ?? 0 }
        if numbers.lexicographicallyPrecedes(Self.minimumLibfprint) {
            return .warning(
                "libfprint", "libfprint \(version) is older than 1.94, which fingerlock is tested with.",
                fix: "upgrade libfprint-2-2 (sudo apt install libfprint-2-2)")
        }
        let location = found.path.isEmpty ? "installed" : "loaded from \(found.path)"
        return .ok("libfprint", "libfprint \(version) (\(package) \(full)) \(location).")
    }

    // MARK: - Readers

    func readersFinding(usb: USBFindings, fprintdKeepsTheFingers: Bool = false) async -> DoctorFinding {
        guard let listReaders = dependencies.listReaders else {
            return .warning(
                "readers", "Readers were not listed (not wired in this build).", fix: "run: fingerlock readers")
        }
        let readers: [ReaderInfo]
        do {
            readers = try await listReaders()
        } catch {
            return .error(
                "readers", "Listing fingerprint readers failed: \(error)",
                fix: usb.deniedDevices.isEmpty
                    ? "see the message above; `fingerlock readers` shows the same error"
                    : "give yourself access to the reader (see the usb finding)")
        }
        guard !readers.isEmpty else {
            // A system-mode vault touches through fingerlockd's reader, which the system-mode rules
            // keep from the user: none visible here is how it should be (the service finding checks it).
            if dependencies.service?.vaultMode() == .system {
                return .ok("readers", "No reader is visible to you; in system mode fingerlockd scans with its own.")
            }
            if fprintdKeepsTheFingers {
                return .ok("readers", "No reader is visible to fingerlock itself; this vault's fingers are fprintd's, which keeps the reader.")
            }
            let fix =
                if !usb.deniedDevices.isEmpty {
                    "give yourself access to the reader (see the usb finding)"
                } else if !usb.readerNodes.isEmpty {
                    "unplug and replug the reader; if it persists, see `fingerlock readers`"
                } else {
                    "plug in a USB reader libfprint supports (https://fprint.freedesktop.org/supported-devices.html)"
                }
            return .error("readers", "No fingerprint reader found.", fix: fix)
        }
        let names = readers.map { "\($0.identity) (\($0.name))" }.joined(separator: ", ")
        return .ok("readers", "\(readers.count) reader\(readers.count == 1 ? "" : "s") found: \(names).")
    }

    // MARK: - USB devices

    struct USBFindings {
        var findings: [DoctorFinding] = []
        /// The usbfs nodes of attached supported readers, as `/dev/...` paths and as found under the
        /// devfs root (they differ only in tests).
        var readerNodes: Set<String> = []
        var deniedDevices: [USBDevice] = []
    }

    func usbFindings(hwdb: LibfprintHwdb?, rules: InstalledUdevRules?) -> USBFindings {
        var result = USBFindings()
        guard let hwdb else {
            result.findings.append(
                .warning(
                    "usb",
                    "libfprint's device list \(dependencies.hwdbPath) is missing, so USB readers cannot be recognised.",
                    fix: "sudo apt install libfprint-2-2"))
            return result
        }
        let devices: [USBDevice]
        do {
            devices = try USBDevice.scan(dependencies.usbDevicesDirectory)
        } catch {
            result.findings.append(
                .warning(
                    "usb", "No USB devices are visible here (\(dependencies.usbDevicesDirectory) cannot be read).",
                    fix: "run fingerlock doctor on the machine the reader is plugged into"))
            return result
        }
        for device in devices {
            if let driver = hwdb.supported[device.id] {
                result.findings.append(accessFinding(device, driver: driver, rules: rules, into: &result))
            } else if hwdb.unsupported.contains(device.id) {
                result.findings.append(
                    .warning(
                        "usb \(device.id)",
                        "\(describe(device)) is a fingerprint reader libfprint knows but does not support.",
                        fix: "use a reader listed at https://fprint.freedesktop.org/supported-devices.html"))
            }
        }
        if result.readerNodes.isEmpty {
            result.findings.append(
                .warning(
                    "usb", "No attached USB device is a reader libfprint supports.",
                    fix: "plug in a supported reader (https://fprint.freedesktop.org/supported-devices.html)"))
        }
        return result
    }

    private func describe(_ device: USBDevice) -> String {
        let product = device.product.map { " \($0)" } ?? ""
        return "USB device \(device.id)\(product) (bus \(device.busNumber), device \(device.deviceNumber))"
    }

    private func accessFinding(
        _ device: USBDevice, driver: String, rules: InstalledUdevRules?, into result: inout USBFindings
    ) -> DoctorFinding {
        let node = device.nodePath(devfsRoot: dependencies.devfsRoot)
        let shownNode = "/dev/" + device.nodeRelativePath
        result.readerNodes.insert(node)
        result.readerNodes.insert(shownNode)
        let check = "usb \(device.id)"
        let what = "Reader \(device.id)\(device.product.map { " \($0)" } ?? "") (driver \(driver)) at \(shownNode)"
        switch dependencies.nodeAccess.check(node) {
        case .granted:
            return .ok(check, "\(what): you can open it.")
        case .missing:
            return .error(
                check, "\(what): the device node is missing.",
                fix: "check that udev is running and /dev is devtmpfs, then replug the reader")
        case .failed(let reason):
            return .error(
                check, "\(what): cannot check access (\(reason)).", fix: "replug the reader and run doctor again")
        case .denied:
            result.deniedDevices.append(device)
            return .error(
                check, "\(what): \(dependencies.user.name) cannot open it.",
                fix: accessFix(device, node: node, rules: rules))
        }
    }

    /// Which rule or group would give this user access, most specific first.
    func accessFix(_ device: USBDevice, node: String, rules: InstalledUdevRules?) -> String {
        let user = dependencies.user
        let reload = "sudo udevadm control --reload && sudo udevadm trigger --subsystem-match=usb"
        let plugdevInstall =
            "sudo make install UDEV_RULES=udev/70-fingerlock-plugdev.rules (in the fingerlock source) "
            + "and sudo usermod -aG plugdev \(user.name), then log out and back in"
        // A node whose group may read and write it: joining that group is the direct fix — never
        // the service's group, which would hand the user what system mode keeps from them.
        if let ownership = NodeOwnership.of(node), ownership.groupCanReadWrite,
            !user.groupIDs.contains(ownership.groupID),
            let group = user.groupName(ownership.groupID), group != "root", group != InstalledUdevRules.serviceGroup
        {
            return "sudo usermod -aG \(group) \(user.name), then log out and back in"
        }
        let logind = FileManager.default.fileExists(atPath: dependencies.runRoot + "/systemd/seats")
        guard let rules else {
            if !logind {
                return "systemd-logind is not running, so use the plugdev rules: \(plugdevInstall)"
            }
            return "install fingerlock's udev rules: sudo make install (in the fingerlock source) or "
                + "sudo install -m 0644 udev/70-fingerlock.rules /etc/udev/rules.d/, then \(reload)"
        }
        guard rules.ids.contains(device.id) else {
            return "\(rules.path) predates this libfprint and lacks \(device.id): "
                + "run make udev-rules && sudo make install (in the fingerlock source)"
        }
        switch rules.variant {
        case .uaccess:
            if isRemoteSession {
                return "uaccess gives the reader only to the active local session: run fingerlock at the machine"
            }
            if !logind {
                return "\(rules.path) uses uaccess, which needs systemd-logind (not running): \(plugdevInstall)"
            }
            return "\(reload), or unplug and replug the reader; if it persists, check that this session is active "
                + "(loginctl show-session $XDG_SESSION_ID -p Active)"
        case .plugdev:
            let inPlugdev = user.groupIDs.contains { user.groupName($0) == "plugdev" }
            if !inPlugdev {
                return "sudo usermod -aG plugdev \(user.name), then log out and back in"
            }
            return "\(reload), or unplug and replug the reader"
        case .system:
            return "\(rules.path) gives the reader to fingerlockd only (system-mode rules): a system-mode vault "
                + "touches through the service (`fingerlock system enable`); for user-mode vaults, sudo make install "
                + "(in the fingerlock source) puts the uaccess rules back"
        }
    }

    // MARK: - udev rules

    func udevRulesFinding(_ rules: InstalledUdevRules?, hwdb: LibfprintHwdb?) -> DoctorFinding {
        guard let rules else {
            return .warning(
                "udev-rules",
                "fingerlock's udev rules (70-fingerlock.rules) are not installed; readers need root or a group.",
                fix: "sudo make install (in the fingerlock source)")
        }
        let missing = Set(hwdb?.supported.keys.map { $0 } ?? []).subtracting(rules.ids)
        if !missing.isEmpty {
            let sample = missing.sorted().prefix(3).map(\.description).joined(separator: ", ")
            return .warning(
                "udev-rules",
                "\(rules.path) lacks \(missing.count) id\(missing.count == 1 ? "" : "s") "
                    + "this libfprint supports (\(sample)…).",
                fix: "make udev-rules && sudo make install (in the fingerlock source)")
        }
        return .ok("udev-rules", "\(rules.path) is installed (\(rules.variant.rawValue), \(rules.ids.count) readers).")
    }

    // MARK: - fprintd

    func fprintdFinding(readerNodes: Set<String>) -> DoctorFinding {
        let table = ProcessTable(procRoot: dependencies.procRoot)
        let pids = table.processIDs(named: "fprintd")
        guard !pids.isEmpty else { return .ok("fprintd", "fprintd is not running.") }
        let pidList = pids.map(String.init).joined(separator: ", ")
        var unknown = false
        for pid in pids {
            guard let open = table.openFiles(of: pid) else {
                unknown = true
                continue
            }
            if let held = open.intersection(readerNodes).sorted().first {
                return .error(
                    "fprintd", "fprintd (pid \(pid)) holds the reader at \(held), so fingerlock gets 'busy'.",
                    fix:
                        "finish or cancel the pending fprintd prompt (login, sudo, lock screen), "
                        + "or: sudo systemctl stop fprintd"
                )
            }
        }
        if unknown {
            return .ok(
                "fprintd",
                "fprintd is running (pid \(pidList)); it claims the reader only during its own prompts "
                    + "(whether it holds it now is visible only to root).")
        }
        return .ok(
            "fprintd",
            "fprintd is running (pid \(pidList)) and does not hold the reader; "
                + "it claims it only during its own prompts."
        )
    }

    // MARK: - Data directory

    func dataDirectoryFindings() -> [DoctorFinding] {
        let check = "data-directory"
        guard let directory = dependencies.dataDirectory else {
            return [
                .error(
                    check, "Cannot tell where fingerlock keeps its data (HOME is not set).",
                    fix: "set HOME, XDG_DATA_HOME or FINGERLOCK_DATA_DIR, or pass --data-dir")
            ]
        }
        guard FileManager.default.fileExists(atPath: directory) || isSymbolicLink(directory) else {
            return [.ok(check, "\(directory) does not exist yet; `fingerlock passcode set` creates it (0700).")]
        }
        do {
            try PrivateDirectory.check(directory)
        } catch {
            return [
                .error(
                    check, directoryProblem(error, path: directory),
                    fix: directoryFix(error, path: directory, isDirectory: true))
            ]
        }
        var findings: [DoctorFinding] = []
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for entry in entries.sorted() {
            let path = directory + "/" + entry
            let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
            guard type == .typeRegular else { continue }
            do {
                try PrivateDirectory.checkFile(path)
            } catch {
                findings.append(
                    .error(
                        check, directoryProblem(error, path: path),
                        fix: directoryFix(error, path: path, isDirectory: false)))
            }
        }
        if findings.isEmpty {
            findings.append(.ok(check, "\(directory) is private (0700, owned by \(dependencies.user.name))."))
        }
        return findings
    }

    /// The problem alone: SafeFiles' messages carry their own fix, which here has its own field.
    private func directoryProblem(_ error: SafeFilesError, path: String) -> String {
        switch error.code {
        case .tooOpen:
            let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber
            return "\(path) is accessible to other users (mode \(String(mode?.intValue ?? 0, radix: 8)))."
        case .notOwned: return "\(path) belongs to another user; fingerlock will not use it."
        case .notADirectory: return "\(path) is not a directory."
        case .notARegularFile: return "\(path) is not a regular file."
        case .io, .diskFull, .lockTimeout, .missing, .exists: return error.message
        }
    }

    private func directoryFix(_ error: SafeFilesError, path: String, isDirectory: Bool) -> String {
        switch error.code {
        case .tooOpen: "chmod \(isDirectory ? "700" : "600") '\(path)'"
        case .notOwned: "sudo chown \(dependencies.user.name) '\(path)', or use your own --data-dir"
        case .notADirectory: "move '\(path)' out of the way; fingerlock needs a directory there"
        case .notARegularFile: "move '\(path)' out of the way; fingerlock needs a plain file there"
        case .io, .diskFull, .lockTimeout, .missing, .exists: "check '\(path)' (ls -ld '\(path)')"
        }
    }

    private func isSymbolicLink(_ path: String) -> Bool {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil
    }

    // MARK: - Session

    /// The variables sshd sets; any of them means the person at the reader may not be the one typing.
    static let remoteSessionVariables = ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"]

    var isRemoteSession: Bool {
        Self.remoteSessionVariables.contains { !(dependencies.environment[$0] ?? "").isEmpty }
    }

    func sessionFinding() -> DoctorFinding {
        guard let variable = Self.remoteSessionVariables.first(where: { !(dependencies.environment[$0] ?? "").isEmpty })
        else {
            return .ok("session", "Local session: the reader can be used.")
        }
        return .error(
            "session",
            "Remote session (\(variable) is set): fingerlock skips the reader, "
                + "since the person at it may not be the one typing.",
            fix: "run fingerlock in a local session at the machine; over SSH the passcode still works")
    }
}
