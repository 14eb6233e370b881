import Auth
import FingerlockProtocol
import FingerlockServiceClient
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockService

#if canImport(Glibc)
    import Glibc
#endif

/// The typed client the CLI will use, against the in-process server.
@Suite(.timed, .timeLimit(.minutes(1)))
struct ServiceClientTests {
    @Test func theTypedClientDrivesEveryMethod() async throws {
        let service = try InProcessServer()
        let client = try ServiceClient(socketPath: service.socketPath, expectedServiceUID: getuid())
        let vault = ClientVault()
        #expect(try client.info().interfaces.contains(ServiceInterface.name))
        #expect(try client.registerVault(vault.id).created)
        let slot = try client.sealPasscodeSlot(
            .init(
                vault: vault.id, stretched: vault.stretched.base64EncodedString(), key: vault.key.base64EncodedString(),
                associatedData: vault.associatedData.base64EncodedString())
        ).sealedSlot
        let unlock = VarlinkParameters.UnlockWithPasscode(
            vault: vault.id, stretched: ClientVault.wrong.base64EncodedString(), sealedSlot: slot,
            associatedData: vault.associatedData.base64EncodedString(), cacheSeconds: 60)
        #expect(
            throws: ServiceClientError.service(
                VarlinkError(.wrongPasscode, ["failedPasscodes": .int(1), "delaySeconds": .int(0)]))
        ) {
            try client.unlockWithPasscode(unlock)
        }
        var right = unlock
        right.stretched = vault.stretched.base64EncodedString()
        #expect(try client.unlockWithPasscode(right).key == vault.key.base64EncodedString())
        #expect(try client.status(vault.id).unlocked)
        #expect(try client.lock(vault.id).wasUnlocked)
        try client.forgetVault(right.proof)
        #expect(try !client.status(vault.id).registered)
        await service.stop()
    }

    @Test func aSocketServedByAnotherUserOrNobodyIsRefused() async throws {
        let service = try InProcessServer()
        #expect(throws: ServiceClientError.self) {
            _ = try ServiceClient(socketPath: service.socketPath, expectedServiceUID: getuid() &+ 1)
        }
        await service.stop()
        #expect(throws: ServiceClientError.self) { _ = try ServiceClient(socketPath: service.socketPath) }
    }

    /// A service that refuses a connection (TooManyConnections) writes its reply and closes at once.
    /// The call then fails on its write (EPIPE) before reading that reply, or reads it in place of
    /// GetInfo's: either way it is "too many connections", neither "not reachable" nor "not fingerlockd".
    @Test func aRefusalWrittenBeforeTheCallIsTooManyConnections() throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/socket"
        let listener = try ListeningSocket.bind(path: path)
        defer { listener.stopListening() }
        let refusal = Self.refusal
        func refuse(closing: Bool) -> Int32 { Self.refuse(listener, closing: closing) }
        // Closed before the call: the write fails, the reply waits unread.
        let early = try ServiceClient(socketPath: path, timeout: .seconds(2))
        _ = refuse(closing: true)
        #expect(throws: ServiceClientError.service(refusal)) { _ = try early.status(UUID().uuidString) }
        // The same before GetInfo (a call that carries a key asks it first).
        let secret = try ServiceClient(socketPath: path, timeout: .seconds(2))
        _ = refuse(closing: true)
        let unlock = VarlinkParameters.UnlockWithPasscode(
            vault: UUID().uuidString, stretched: ClientVault.wrong.base64EncodedString(), sealedSlot: "",
            associatedData: "", cacheSeconds: 0)
        #expect(throws: ServiceClientError.service(refusal)) { _ = try secret.unlockWithPasscode(unlock) }
        // Still open when GetInfo goes out: its reply is the refusal.
        let late = try ServiceClient(socketPath: path, timeout: .seconds(2))
        let open = refuse(closing: false)
        defer { close(open) }
        #expect(throws: ServiceClientError.service(refusal)) { _ = try late.unlockWithPasscode(unlock) }
        // And the CLI's words for it, whichever comes first, the refusal or the call.
        Thread.detachNewThread { _ = Self.refuse(listener, closing: true) }
        let system = SystemServiceClient(socketPath: path, timeout: .seconds(2))
        do {
            _ = try system.status(vault: UUID())
            Issue.record("the refused call succeeded")
        } catch let error as SystemServiceError {
            guard case .failure(let text) = error.code else {
                Issue.record("not a service failure: \(error.code)")
                return
            }
            #expect(text == "fingerlockd has too many connections open (32); try again in a moment.")
        }
    }

    /// A touch asked by a task already cancelled (Ctrl-C as the command reaches the scan) connects
    /// but sends nothing: the service never starts a scan for a client that is gone. The same call
    /// from a live task does send its request, first of all.
    @Test func aTouchFromACancelledTaskSendsNothing() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/socket"
        let listener = try ListeningSocket.bind(path: path)
        defer { listener.stopListening() }
        let system = SystemServiceClient(socketPath: path, timeout: .seconds(2))
        let touch = { @Sendable () async throws -> SystemTouch in
            try await system.unlockWithTouch(vault: UUID(), finger: nil, timeout: .seconds(1), reuse: false) { _ in }
        }
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await touch()
        }
        await #expect(throws: CancellationError.self) { _ = try await cancelled.value }
        // Accepted and read off the pool: the live touch below needs a pool thread to connect.
        #expect(try await offPool { Self.firstBytes(acceptingOn: listener) } == [])

        let live = Task { try await touch() }
        let sent = try await offPool { Self.firstBytes(acceptingOn: listener) }
        #expect(String(decoding: sent ?? [], as: UTF8.self).contains("UnlockWithTouch"), "\(String(describing: sent))")
        live.cancel()
        _ = try? await live.value
    }

    /// What the client sent on the next connection before it closed it or fell silent for 2 s; nil
    /// when nobody connected within 30 s (other tests may hold the pool the client connects from).
    static func firstBytes(acceptingOn listener: ListeningSocket) -> [UInt8]? {
        var waiting = pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&waiting, 1, 30_000) > 0 else { return nil }
        let fd = accept(listener.descriptor, nil, nil)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 2000) > 0 else { return received }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return received }
            received += chunk[..<count]
            if received.contains(0) { return received }
        }
    }

    /// An error reply is the error it names, also when its parameters are not what this client can
    /// read; a reply naming an error is never taken for a result.
    @Test func anErrorReplyIsItsErrorEvenWithParametersThatCannotBeRead() throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/socket"
        let listener = try ListeningSocket.bind(path: path)
        defer { listener.stopListening() }
        let name = "io.fingerlock.Service.VaultNotKnown"
        for raw in [
            #"{"error":"\#(name)","parameters":{"odd":{"nested":[1.5,null,true]}}}"#,
            #"{"error":"\#(name)","parameters":{"vault":"x"}}"#,
            #"{"error":"\#(name)"}"#,
        ] {
            let client = try ServiceClient(socketPath: path, timeout: .seconds(2))
            let fd = accept(listener.descriptor, nil, nil)
            defer { close(fd) }
            let reply = Array(raw.utf8) + [0]
            _ = reply.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            do {
                _ = try client.status(UUID().uuidString)
                Issue.record("\(raw) was taken for a result")
            } catch {
                guard case .service(let failure) = error else {
                    Issue.record("\(raw): not the service's error: \(error)")
                    continue
                }
                #expect(failure.name == name, "\(raw)")
            }
        }
    }

    static let refusal = VarlinkError(.tooManyConnections, ["limit": .int(32)])

    /// Accepts the next connection and refuses it as `VarlinkServer` does: the reply, then (when
    /// `closing`) the close. Returns the descriptor.
    static func refuse(_ listener: ListeningSocket, closing: Bool) -> Int32 {
        let fd = accept(listener.descriptor, nil, nil)
        let reply = VarlinkReply.encode(refusal)
        _ = reply.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if closing { close(fd) }
        return fd
    }

    @Test func aSilentServiceTimesOut() throws {
        // A listening socket nobody accepts on: the call must give up at its deadline.
        let directory = try TemporaryDirectory.make()
        let listener = try ListeningSocket.bind(path: directory + "/socket")
        defer { listener.stopListening() }
        let client = try ServiceClient(socketPath: directory + "/socket", timeout: .milliseconds(300))
        #expect(throws: ServiceClientError.timedOut) { _ = try client.status(UUID().uuidString) }
    }
}
