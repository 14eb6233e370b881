/// Who answered `org.varlink.service.GetInfo`, as fingerlockd reports itself: vendor "fingerlock",
/// product "fingerlockd", the interface `io.fingerlock.Service` among its interfaces, and a version
/// `VERSION (protocol N)`. Nil for any other answer.
public struct ServiceIdentity: Sendable, Equatable {
    public static let vendor = "fingerlock"
    public static let product = "fingerlockd"

    /// The release, as in `fingerlockd --version`.
    public var version: String
    /// N of `(protocol N)`; nil when the version does not say.
    public var protocolVersion: Int?

    public init?(_ info: VarlinkParameters.Info) {
        guard info.vendor == Self.vendor, info.product == Self.product, info.interfaces.contains(ServiceInterface.name)
        else { return nil }
        version = info.version
        protocolVersion = Self.protocolVersion(in: info.version)
    }

    /// fingerlockd's version string for a release: what GetInfo reports.
    public static func versionString(release: String) -> String {
        "\(release) (protocol \(ServiceInterface.protocolVersion))"
    }

    /// N in `... (protocol N)` at the end of a version string.
    public static func protocolVersion(in version: String) -> Int? {
        guard let match = version.firstMatch(of: /\(protocol (\d+)\)/) else { return nil }
        return Int(match.output.1)
    }

    /// What an answer says it is, for an error message: product, version and vendor, each cut short
    /// and with anything but printable ASCII replaced (it comes from whatever listens).
    public static func describe(_ info: VarlinkParameters.Info) -> String {
        func clean(_ text: String) -> String {
            let printable = String(text.unicodeScalars.prefix(40).map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
            return printable.isEmpty ? "(empty)" : printable
        }
        return "\(clean(info.product)) \(clean(info.version)) from \(clean(info.vendor))"
    }
}
