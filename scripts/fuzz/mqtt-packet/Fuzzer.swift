// libFuzzer target for what a broker sends the MQTT client: MQTTPacket.decode. Built by
// scripts/fuzz.sh mqtt-packet together with the WPMQTT source it lists (not part of the package
// build).
//
// Each input is a stream of bytes as the client's buffer holds it. Decoding must return a packet
// and a length within the input, nil (more bytes needed), or throw; never crash, never claim
// more bytes than it has. A packet decoded encodes back to bytes that decode to the same packet
// (for the packets a broker sends), and the stream is walked packet by packet as the client does.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var rest = Array(UnsafeBufferPointer(start: data, count: size))[...]
    var packets = 0
    while packets < 1_000 {
        let decoded: (MQTTPacket, Int)?
        do {
            decoded = try MQTTPacket.decode(rest, maxLength: 1 << 16)
        } catch {
            return 0
        }
        guard let (packet, used) = decoded else { return 0 }
        precondition(used > 0 && used <= rest.count, "decode claimed \(used) of \(rest.count) bytes")
        let again = try? MQTTPacket.decode(packet.encoded[...], maxLength: 1 << 20)
        precondition(again?.0 == packet && again?.1 == packet.encoded.count, "\(packet) does not encode back to itself")
        rest = rest.dropFirst(used)
        packets += 1
    }
    return 0
}
