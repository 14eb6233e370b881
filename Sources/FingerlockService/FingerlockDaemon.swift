public import Logging
public import ServiceLifecycle

/// The service as swift-service-lifecycle runs it: serves until graceful shutdown (SIGTERM), then
/// stops accepting, lets running calls finish, and zeroes and forgets every cached key.
public struct FingerlockDaemon: Service {
    let server: VarlinkServer
    let core: ServiceCore
    let logger: Logger

    public init(server: VarlinkServer, core: ServiceCore, logger: Logger) {
        self.server = server
        self.core = core
        self.logger = logger
    }

    public func run() async throws {
        server.start()
        logger.info("fingerlockd listening", metadata: ["version": "\(core.version)"])
        // Returns on graceful shutdown; throws when the task is cancelled. Either way: stop.
        try? await gracefulShutdown()
        logger.info("fingerlockd stopping")
        await server.stop()
        core.forgetAllKeys()
        logger.info("fingerlockd stopped")
    }
}
