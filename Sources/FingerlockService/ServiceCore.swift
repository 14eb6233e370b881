import AuthCore
import Crypto
public import FingerlockProtocol
public import FoundationEssentials
import Logging
import Synchronization

/// The service's policy: decodes a Varlink message, runs the method for the peer the kernel named,
/// and encodes the reply (or hands back a long call, for the methods that scan). Safe to call from many connections at once (the
/// stores lock; the counters use `flock`).
///
/// Nothing that leaves here carries the secret, a KEK or a template; the store master key leaves
/// only in the reply to a correct passcode or a matching touch, to the vault's owner.
public final class ServiceCore: Sendable {
    let dependencies: ServiceDependencies
    public let product: String
    public let version: String
    /// Each vault held open: its cached key, reuse window and expiry timer, behind one lock.
    let sessions: VaultSessions
    /// One scan at a time on the reader, in arrival order.
    let scans = ScanQueue()

    public init(dependencies: ServiceDependencies, version: String) {
        self.dependencies = dependencies
        sessions = VaultSessions(keys: dependencies.keyCache, now: dependencies.now)
        self.product = ServiceIdentity.product
        self.version = version
    }

    var logger: Logger { dependencies.logger }

    /// What one message starts: the reply to a short method, or a long call (a scan) for the
    /// connection to run.
    public func start(message: Data, peer: PeerCredentials) -> ServiceCall {
        let call: VarlinkCall
        do {
            call = try VarlinkCall(message: message)
        } catch {
            logger.notice("malformed message", metadata: ["uid": "\(peer.uid)", "error": "\(error.name)"])
            return .reply(VarlinkReply.encode(error))
        }
        let method = Self.loggable(call.method)
        let prefix = ServiceInterface.name + "."
        if call.method.hasPrefix(prefix), let long = ServiceInterface.Method(rawValue: String(call.method.dropFirst(prefix.count))),
            Self.longMethods.contains(long)
        {
            // Nobody waits for the outcome of a oneway scan: none is started.
            if call.oneway { return .reply(nil) }
            return .long(longCall(long, call, peer: peer, name: method))
        }
        return .reply(respond(call, peer: peer, method: method) { () throws(VarlinkError) in try dispatch(call, peer: peer) })
    }

    /// The methods that wait for the reader, or for fprintd (UseFprintdFingers).
    static let longMethods: Set<ServiceInterface.Method> = [
        .unlockWithTouch, .enrollFinger, .forgetFinger, .importFinger, .useFprintdFingers,
    ]

    /// Logs the outcome of a call and encodes its error; nil for a oneway call.
    func respond(_ call: VarlinkCall, peer: PeerCredentials, method: String, _ body: () throws(VarlinkError) -> Data)
        -> Data?
    {
        let reply: Data
        do {
            reply = try body()
            logger.info("call", metadata: ["uid": "\(peer.uid)", "pid": "\(peer.pid)", "method": "\(method)"])
        } catch {
            logger.info(
                "call failed",
                metadata: ["uid": "\(peer.uid)", "pid": "\(peer.pid)", "method": "\(method)", "error": "\(error.name)"])
            reply = VarlinkReply.encode(error)
        }
        return call.oneway ? nil : reply
    }

    /// A method name as the log may show it: a client's string could carry newlines (forged log
    /// lines) or be 64 KiB long.
    static func loggable(_ method: String) -> String {
        let allowed =
            method.utf8.count <= 128
            && method.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "."
            }
        return allowed ? method : "(not a method name)"
    }

    private func dispatch(_ call: VarlinkCall, peer: PeerCredentials) throws(VarlinkError) -> Data {
        let prefix = ServiceInterface.name + "."
        switch call.method {
        case "org.varlink.service.GetInfo":
            return VarlinkReply.encode(info)
        case "org.varlink.service.GetInterfaceDescription":
            let interface = try call.parameters(VarlinkParameters.Interface.self).interface
            switch interface {
            case ServiceInterface.name:
                return VarlinkReply.encode(
                    VarlinkParameters.InterfaceDescription(description: ServiceInterface.description))
            case "org.varlink.service":
                return VarlinkReply.encode(
                    VarlinkParameters.InterfaceDescription(description: Self.varlinkServiceDescription))
            default:
                throw .interfaceNotFound(interface)
            }
        case let name where name.hasPrefix(prefix):
            guard let method = ServiceInterface.Method(rawValue: String(name.dropFirst(prefix.count))) else {
                throw .methodNotFound(name)
            }
            return try dispatch(method, call, peer: peer)
        case let name where name.hasPrefix("org.varlink.service."):
            throw .methodNotFound(name)
        default:
            let interface = call.method.split(separator: ".").dropLast().joined(separator: ".")
            throw .interfaceNotFound(interface)
        }
    }

    private func dispatch(_ method: ServiceInterface.Method, _ call: VarlinkCall, peer: PeerCredentials)
        throws(VarlinkError) -> Data
    {
        switch method {
        case .registerVault:
            return VarlinkReply.encode(try registerVault(call.parameters(VarlinkParameters.Vault.self), peer: peer))
        case .sealPasscodeSlot:
            return VarlinkReply.encode(
                try sealPasscodeSlot(call.parameters(VarlinkParameters.SealPasscodeSlot.self), peer: peer))
        case .lock:
            return VarlinkReply.encode(try lock(call.parameters(VarlinkParameters.Lock.self), peer: peer))
        case .status:
            return VarlinkReply.encode(try status(call.parameters(VarlinkParameters.Vault.self), peer: peer))
        case .forgetVault:
            try forgetVault(call.parameters(VarlinkParameters.PasscodeProof.self), peer: peer)
            return VarlinkReply.encode(VarlinkParameters.Empty())
        case .setVaultPolicy:
            return VarlinkReply.encode(
                try setVaultPolicy(call.parameters(VarlinkParameters.SetVaultPolicy.self), peer: peer))
        case .listFingers:
            return VarlinkReply.encode(try listFingers(call.parameters(VarlinkParameters.Vault.self), peer: peer))
        case .exportFinger:
            return VarlinkReply.encode(try exportFinger(call.parameters(VarlinkParameters.ExportFinger.self), peer: peer))
        case .releaseWithinReuseWindow:
            return VarlinkReply.encode(
                try releaseWithinReuseWindow(call.parameters(VarlinkParameters.Vault.self), peer: peer))
        case .unlockWithPasscode:
            return VarlinkReply.encode(
                try unlockWithPasscode(call.parameters(VarlinkParameters.UnlockWithPasscode.self), peer: peer))
        case .unlockWithTouch, .enrollFinger, .forgetFinger, .importFinger, .useFprintdFingers:
            // Reached only through `start`, which runs them as long calls.
            throw .methodNotFound(method.qualifiedName)
        }
    }

    public var info: VarlinkParameters.Info {
        VarlinkParameters.Info(
            vendor: ServiceIdentity.vendor, product: product,
            version: ServiceIdentity.versionString(release: version),
            // No public home page yet; the interface description is the documentation.
            url: "",
            interfaces: ["org.varlink.service", ServiceInterface.name])
    }

    /// Zeroes and forgets every cached key (graceful shutdown).
    public func forgetAllKeys() {
        let count = sessions.forgetAll()
        logger.info("cached keys forgotten", metadata: ["count": "\(count)"])
    }

    static let varlinkServiceDescription = """
        # The Varlink service interface.
        interface org.varlink.service

        method GetInfo() -> (vendor: string, product: string, version: string, url: string, interfaces: []string)

        method GetInterfaceDescription(interface: string) -> (description: string)

        error InterfaceNotFound (interface: string)

        error MethodNotFound (method: string)

        error MethodNotImplemented (method: string)

        error InvalidParameter (parameter: string)

        error PermissionDenied ()

        error ExpectedMore ()

        """
}
