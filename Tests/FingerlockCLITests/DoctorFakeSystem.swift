import Auth
import Fingerprint
import Foundation

@testable import FingerlockCLI

#if canImport(Glibc)
    import Glibc
#endif

/// A fake machine in a temp directory: sysfs, devfs, procfs, /run, dpkg, udev rules, libfprint's
/// hwdb and a data directory, plus injected probes. Each test builds the situation it needs.
final class DoctorFakeSystem {
    let root: URL
    var environment: [String: String] = ["HOME": "/home/alice", "USER": "alice"]
    var user: DoctorUser
    var denied: Set<String> = []
    var keyring: KeyringStatus = .usable
    var readers: (@Sendable () async throws -> [ReaderInfo])? = { [DoctorFakeSystem.synaptics] }
    var setup: (@Sendable () async throws -> SetupStatus)? = {
        SetupStatus(passcodeSet: true, enrolledFingers: ["right-index-finger on synaptics:1"])
    }
    lazy var dataDirectory: String? = path("home/alice/.local/share/fingerlock")

    static let synaptics = ReaderInfo(
        name: "Synaptics Sensors", driver: "synaptics", deviceID: "1", scanType: .press, enrollStages: 8,
        features: [.identify, .verify])

    /// A hwdb in libfprint's format: two supported drivers and one known-unsupported id.
    static let hwdb = """
        # SPDX-License-Identifier: LGPL-2.1-or-later
        # This file has been generated using fprint-list-udev-hwdb with all drivers enabled

        # Supported by libfprint driver synaptics
        usb:v06CBp00BD*
        usb:v06CBp00DF*
         ID_AUTOSUSPEND=1
         ID_PERSIST=0

        # Supported by libfprint driver goodixmoc
        usb:v27C6p5840*
         ID_AUTOSUSPEND=1

        # Known unsupported devices
        usb:v27C6p538C*
         ID_AUTOSUSPEND=1

        """

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("fingerlock-doctor-\(UUID().uuidString)")
        // 4242 is the group the node-group test gives a device node (chown as root); as a normal
        // user that test uses the process's own group instead, named the same.
        var groups: [UInt32: String] = [0: "root", 46: "plugdev", 1000: "alice", 4242: "fingerprint-test"]
        if groups[getegid()] == nil { groups[getegid()] = "fingerprint-test" }
        let names = groups
        user = DoctorUser(uid: 1000, name: "alice", groupIDs: [1000], groupName: { names[$0] })
        try write("hwdb/60-autosuspend-libfprint-2.hwdb", Self.hwdb)
        try makeDirectory("sys/bus/usb/devices")
        try makeDirectory("proc")
        try makeDirectory("run/systemd/seats")
        try makeDirectory("etc/udev/rules.d")
        try write(
            "proc/self/maps",
            """
            55d0c0a00000-55d0c0a10000 r--p 00000000 fe:01 131 /usr/local/bin/fingerlock
            7f1c2a000000-7f1c2a010000 r--p 00000000 fe:01 4242 /usr/lib/x86_64-linux-gnu/libfprint-2.so.2.0.0
            7f1c2b000000-7f1c2b010000 r-xp 00000000 fe:01 4243 /usr/lib/x86_64-linux-gnu/libglib-2.0.so.0.7400.6
            7ffd1a000000-7ffd1a021000 rw-p 00000000 00:00 0                          [stack]

            """)
        try write(
            "dpkg/info/libfprint-2-2:amd64.list",
            "/.\n/usr/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu/libfprint-2.so.2.0.0\n/usr/lib/x86_64-linux-gnu/libfprint-2.so.2\n"
        )
        try write("dpkg/info/libfprint-2-dev:amd64.list", "/usr/include/libfprint-2/fprint.h\n")
        try write(
            "dpkg/status",
            """
            Package: libfoo
            Status: install ok installed
            Version: 9

            Package: libfprint-2-2
            Status: install ok installed
            Architecture: amd64
            Version: 1:1.94.5-1
            Description: async fingerprint library of fprint project, shared libraries
             The fprint project aims to support for consumer fingerprint reader devices.

            """)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    func makeDirectory(_ relative: String, mode: Int = 0o755) throws {
        try FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path(relative))
    }

    func write(_ relative: String, _ text: String, mode: Int = 0o644) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    }

    func remove(_ relative: String) throws { try FileManager.default.removeItem(atPath: path(relative)) }

    /// A USB device in sysfs, its interface directory, and (unless `node: false`) its usbfs node.
    @discardableResult
    func plug(_ vendor: String, _ product: String, bus: Int, device: Int, name: String? = nil, node: Bool = true)
        throws -> String
    {
        let sysName = name ?? "\(bus)-\(device)"
        let base = "sys/bus/usb/devices/\(sysName)/"
        try write(base + "idVendor", vendor + "\n")
        try write(base + "idProduct", product + "\n")
        try write(base + "busnum", "\(bus)\n")
        try write(base + "devnum", "\(device)\n")
        try write(base + "product", "Prometheus MIS Touch Fingerprint Reader\n")
        try makeDirectory("sys/bus/usb/devices/\(sysName):1.0")
        try write("sys/bus/usb/devices/\(sysName):1.0/bInterfaceClass", "ff\n")
        let relative = String(format: "dev/bus/usb/%03d/%03d", bus, device)
        if node { try write(relative, "", mode: 0o664) }
        return path(relative)
    }

    /// A process with `comm` and, optionally, open files pointing at `targets`.
    func spawn(_ name: String, pid: Int, openFiles targets: [String]?) throws {
        try write("proc/\(pid)/comm", name + "\n")
        guard let targets else { return }
        try makeDirectory("proc/\(pid)/fd")
        for (index, target) in targets.enumerated() {
            try FileManager.default.createSymbolicLink(
                atPath: path("proc/\(pid)/fd/\(index)"), withDestinationPath: target)
        }
    }

    func installRules(_ text: String, in directory: String = "etc/udev/rules.d") throws {
        try write("\(directory)/70-fingerlock.rules", text)
    }

    static func rules(_ ids: [(String, String)], action: String = "TAG+=\"uaccess\"") -> String {
        (["# fingerlock", "SUBSYSTEM!=\"usb\", GOTO=\"fingerlock_end\""]
            + ids.map { "ATTRS{idVendor}==\"\($0.0)\", ATTRS{idProduct}==\"\($0.1)\", \(action)" }
            + ["LABEL=\"fingerlock_end\""]).joined(separator: "\n") + "\n"
    }

    var dependencies: DoctorDependencies {
        DoctorDependencies(
            environment: environment, user: user, hwdbPath: path("hwdb/60-autosuspend-libfprint-2.hwdb"),
            usbDevicesDirectory: path("sys/bus/usb/devices"), devfsRoot: path("dev"), procRoot: path("proc"),
            runRoot: path("run"), dpkgRoot: path("dpkg"),
            udevRulesDirectories: [path("etc/udev/rules.d"), path("run/udev/rules.d"), path("usr/lib/udev/rules.d")],
            dataDirectory: dataDirectory, nodeAccess: FakeNodeAccess(denied: denied),
            keyring: FixedKeyring(status: keyring), listReaders: readers, setupStatus: setup)
    }

    func run() async -> DoctorReport { await Doctor(dependencies).run() }
}

/// Denies the listed nodes as the kernel would for a user without an ACL or group; everything else
/// goes to the real access(2) (so a missing node is really missing).
struct FakeNodeAccess: DeviceNodeAccess {
    let denied: Set<String>
    func check(_ path: String) -> NodeAccess {
        denied.contains(path) ? .denied : KernelDeviceNodeAccess().check(path)
    }
}

struct FixedKeyring: KeyringProbe {
    let status: KeyringStatus
    func probe() -> KeyringStatus { status }
}

extension DoctorReport {
    func finding(_ check: String) -> DoctorFinding? { findings.first { $0.check == check } }
    func findings(_ check: String) -> [DoctorFinding] { findings.filter { $0.check == check } }
}
