import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The process environment that makes libfprint create its virtual devices: one socket path per
/// driver (`FP_VIRTUAL_DEVICE`, `FP_VIRTUAL_DEVICE_STORAGE`, `FP_VIRTUAL_IMAGE`) and only those
/// drivers (`FP_DRIVERS_WHITELIST`). The variables are process-wide and libfprint reads them when a
/// context enumerates: tests that set them take turns (`.exclusive(to: .processSettings)`).
public enum VirtualDeviceEnvironment {
    /// Each virtual driver's name and the variable that holds its socket path.
    public static let variables = [
        "virtual_device": "FP_VIRTUAL_DEVICE",
        "virtual_device_storage": "FP_VIRTUAL_DEVICE_STORAGE",
        "virtual_image": "FP_VIRTUAL_IMAGE",
    ]

    /// Sets the variables for `drivers` (names as in `variables`), clears the others', and returns
    /// each driver's new socket path. A context made afterwards enumerates exactly these.
    public static func prepare(drivers: [String]) -> [String: String] {
        for variable in variables.values { unsetenv(variable) }
        var paths: [String: String] = [:]
        for driver in drivers {
            guard let variable = variables[driver] else { continue }
            let path = "/tmp/fl-\(driver.suffix(5))-\(UUID().uuidString.prefix(8)).sock"
            setenv(variable, path, 1)
            paths[driver] = path
        }
        setenv("FP_DRIVERS_WHITELIST", drivers.joined(separator: ":"), 1)
        return paths
    }
}
