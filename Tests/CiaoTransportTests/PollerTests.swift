import Foundation
import Glibc
import Testing

@testable import CiaoTransport

/// Poller and Wakeup use an eventfd, which is no socket, so these run everywhere.
@Suite struct PollerTests {
    @Test func timeoutsRoundUpToWholeMilliseconds() {
        #expect(Poller.milliseconds(rounding: .zero) == 0)
        #expect(Poller.milliseconds(rounding: .milliseconds(-5)) == 0)
        #expect(Poller.milliseconds(rounding: .nanoseconds(1)) == 1)
        #expect(Poller.milliseconds(rounding: .milliseconds(250)) == 250)
        #expect(Poller.milliseconds(rounding: .microseconds(1500)) == 2)
        #expect(Poller.milliseconds(rounding: .seconds(3)) == 3000)
        #expect(Poller.milliseconds(rounding: .seconds(Int64.max)) == Int32.max)
    }

    @Test func wakeupMakesItsDescriptorReadableUntilDrained() throws {
        let wakeup = try Wakeup()
        var poller = Poller()
        #expect(try poller.wait(fileDescriptors: [wakeup.fileDescriptor], timeout: .zero).isEmpty)
        #expect(!wakeup.drain())
        wakeup.signal()
        wakeup.signal()
        #expect(
            try poller.wait(fileDescriptors: [wakeup.fileDescriptor], timeout: .seconds(1)) == [wakeup.fileDescriptor])
        #expect(wakeup.drain())
        #expect(try poller.wait(fileDescriptors: [wakeup.fileDescriptor], timeout: .milliseconds(10)).isEmpty)
    }

    /// A plain thread signals: the test blocks in poll(2), so it must not wait on the
    /// cooperative pool it may be occupying.
    @Test func wakeupFromAnotherThread() throws {
        let wakeup = try Wakeup()
        let clock = ContinuousClock()
        let start = clock.now
        Thread {
            Thread.sleep(forTimeInterval: 0.05)
            wakeup.signal()
        }.start()
        var poller = Poller()
        let readable = try poller.wait(fileDescriptors: [-1, wakeup.fileDescriptor], timeout: .seconds(10))
        #expect(readable == [wakeup.fileDescriptor])
        #expect(clock.now - start < .seconds(5))
    }

    @Test func aClosedDescriptorIsAnError() throws {
        var poller = Poller()
        let error = #expect(throws: TransportError.self) {
            try poller.wait(fileDescriptors: [999_999], timeout: .zero)
        }
        #expect(error?.errno == EBADF)
    }
}
