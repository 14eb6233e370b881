public import Auth
public import AuthCore
public import Fingerprint

/// Everything `doctor` looks at, injected so tests can point it at a fake sysfs/devfs/proc tree and
/// hand in probes. ``system(environment:dataDirectory:listReaders:setupStatus:service:)`` gives the real ones.
public struct DoctorDependencies: Sendable {
    public var environment: [String: String]
    public var user: DoctorUser
    /// libfprint's hwdb, the list of supported USB ids.
    public var hwdbPath: String
    /// Where USB devices appear in sysfs (`/sys/bus/usb/devices`).
    public var usbDevicesDirectory: String
    /// The devfs root holding `bus/usb/BBB/DDD` (`/dev`).
    public var devfsRoot: String
    /// procfs (`/proc`): fprintd, and this process's mapped libfprint.
    public var procRoot: String
    /// `/run`: `systemd/seats` exists when systemd-logind manages seats (needed for uaccess).
    public var runRoot: String
    /// dpkg's database (`/var/lib/dpkg`), for the libfprint package version.
    public var dpkgRoot: String
    /// Where udev reads rules, in precedence order.
    public var udevRulesDirectories: [String]
    /// fingerlock's data directory; nil when it cannot be determined (no HOME).
    public var dataDirectory: String?
    public var nodeAccess: any DeviceNodeAccess
    public var keyring: any KeyringProbe
    /// Lists the libfprint readers; nil when the caller has not wired one.
    public var listReaders: (@Sendable () async throws -> [ReaderInfo])?
    /// Reports passcode and enrolled fingers; nil when the caller has not wired one.
    public var setupStatus: (@Sendable () async throws -> SetupStatus)?
    /// fingerlockd; nil when the caller has not wired it (no `service` finding).
    public var service: DoctorServiceTarget?
    /// fprintd, for the fingers a desktop keeps; nil when not wired (no `fprintd-fingers` finding).
    public var fprintd: (any FprintdFingers)?
    /// The passcode's TPM binding and the TPM's state; nil when not wired (no `tpm` finding).
    public var tpm: (@Sendable () -> TPMBindingManagement.Report)?

    public init(
        environment: [String: String], user: DoctorUser, hwdbPath: String, usbDevicesDirectory: String,
        devfsRoot: String, procRoot: String, runRoot: String, dpkgRoot: String, udevRulesDirectories: [String],
        dataDirectory: String?, nodeAccess: any DeviceNodeAccess, keyring: any KeyringProbe,
        listReaders: (@Sendable () async throws -> [ReaderInfo])?,
        setupStatus: (@Sendable () async throws -> SetupStatus)?, service: DoctorServiceTarget? = nil
    ) {
        self.environment = environment
        self.user = user
        self.hwdbPath = hwdbPath
        self.usbDevicesDirectory = usbDevicesDirectory
        self.devfsRoot = devfsRoot
        self.procRoot = procRoot
        self.runRoot = runRoot
        self.dpkgRoot = dpkgRoot
        self.udevRulesDirectories = udevRulesDirectories
        self.dataDirectory = dataDirectory
        self.nodeAccess = nodeAccess
        self.keyring = keyring
        self.listReaders = listReaders
        self.setupStatus = setupStatus
        self.service = service
        self.tpm = nil
    }

    /// The real system: real paths, access(2), the kernel keyring.
    public static func system(
        environment: [String: String], dataDirectory: String?,
        listReaders: (@Sendable () async throws -> [ReaderInfo])?,
        setupStatus: (@Sendable () async throws -> SetupStatus)?, service: DoctorServiceTarget? = nil
    ) -> DoctorDependencies {
        DoctorDependencies(
            environment: environment, user: .current(environment: environment), hwdbPath: LibfprintHwdb.defaultPath,
            usbDevicesDirectory: "/sys/bus/usb/devices", devfsRoot: "/dev", procRoot: "/proc", runRoot: "/run",
            dpkgRoot: "/var/lib/dpkg", udevRulesDirectories: InstalledUdevRules.defaultDirectories,
            dataDirectory: dataDirectory, nodeAccess: KernelDeviceNodeAccess(), keyring: KernelKeyringProbe(),
            listReaders: listReaders, setupStatus: setupStatus, service: service)
    }
}
