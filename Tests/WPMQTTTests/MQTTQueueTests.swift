import Testing
import WPTestThreads
@testable import WPMQTT

/// The client's queue: oldest first, a retained topic's waiting message replaced in place of
/// being repeated, and a big discovery queued and taken in linear time.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct MQTTQueueTests {
    static func message(_ topic: String, _ text: String, retain: Bool = true) -> MQTTPacket.Message {
        MQTTPacket.Message(topic: topic, payload: Array(text.utf8), qos: 1, retain: retain)
    }

    @Test func aRetainedTopicKeepsOnlyItsLatestMessageWhereTheLatestWasQueued() {
        var queue = MQTTClient.Queue()
        queue.append(Self.message("a", "1"))
        queue.append(Self.message("b", "1"))
        queue.append(Self.message("a", "2"))
        queue.append(Self.message("e", "x", retain: false))
        queue.append(Self.message("e", "y", retain: false))
        #expect(queue.count == 4)
        var taken: [String] = []
        while let message = queue.removeFirst() { taken.append(message.topic + String(decoding: message.payload, as: UTF8.self)) }
        #expect(taken == ["b1", "a2", "ex", "ey"])
        #expect(queue.isEmpty && queue.first == nil)
        // After it was taken, the topic queues anew.
        queue.append(Self.message("a", "3"))
        #expect(queue.removeFirst()?.payload == Array("3".utf8))
    }

    @Test func aLargeDiscoveryIsQueuedAndTakenWholeAcrossCompactions() {
        var queue = MQTTClient.Queue()
        for index in 0..<20_000 { queue.append(Self.message("t/\(index % 15_000)", "\(index)")) }
        #expect(queue.count == 15_000)
        // Taking the first 5,000 (t/5000 to t/9999) while t/0 to t/4999, still waiting, are replaced.
        var taken: [String] = []
        for index in 0..<5_000 {
            guard let message = queue.removeFirst() else { break }
            taken.append(message.topic)
            queue.append(Self.message("t/\(index)", "again"))
        }
        var payloads: [String] = []
        while let message = queue.removeFirst() {
            taken.append(message.topic)
            payloads.append(String(decoding: message.payload, as: UTF8.self))
        }
        #expect(taken.count == 15_000 && Set(taken).count == 15_000)
        #expect(taken.prefix(2) == ["t/5000", "t/5001"] && payloads.suffix(5_000).allSatisfy { $0 == "again" })
    }
}
