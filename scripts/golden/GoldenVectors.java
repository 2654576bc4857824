// Writes the JDK facts the synth engine must reproduce, as JSON on stdout: L64X128MixRandom draws
// for every method the engine calls (first values and SHA-256 of long runs, so the rare ziggurat
// and rejection paths are covered) and Double.toString on edge and seeded random values.
// Not part of the build: scripts/golden/generate.mjs compiles and runs it (see test/golden/README.md).
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

public class GoldenVectors {
  static final long[] SEEDS = {42L, 7L, 1L, 0L, -1L, -3L, 0x123456789abcdefL, Long.MIN_VALUE, Long.MAX_VALUE};
  // Hash runs use fewer seeds: they exist to reach the rare paths, the first values pin the seeding.
  static final long[] HASH_SEEDS = {42L, -3L, 0x123456789abcdefL};
  static final int FIRST = 8;
  static final int RUN = 200_000;
  // Power-of-two (incl. n = 1 and n = 2^31 wrapping negative), rejection-heavy, small and wide ranges.
  static final int[][] BOUNDS = {
    {0, 1}, {0, 2}, {0, 256}, {-8, 8}, {5, 6}, {Integer.MIN_VALUE, 0}, {-(1 << 30), 1 << 30},
    {1, 7}, {0, 1000}, {-50, 50}, {0, 60}, {200, 1000}, {0, 1_000_000_007}, {0, (1 << 30) + 1},
    {Integer.MIN_VALUE + 5, Integer.MAX_VALUE - 7}, {Integer.MIN_VALUE, Integer.MAX_VALUE}, {-1, Integer.MAX_VALUE}
  };


  static final String[] STREAMS = {"nextLong", "nextInt", "nextDouble", "nextGaussian", "nextExponential", "nextIntBounded"};

  static long draw(String stream, RandomGenerator r, int i) {
    switch (stream) {
      case "nextLong": return r.nextLong();
      case "nextInt": return r.nextInt();
      case "nextDouble": return Double.doubleToRawLongBits(r.nextDouble());
      case "nextGaussian": return Double.doubleToRawLongBits(r.nextGaussian());
      case "nextExponential": return Double.doubleToRawLongBits(r.nextExponential());
      default: { int[] b = BOUNDS[i % BOUNDS.length]; return r.nextInt(b[0], b[1]); }
    }
  }

  static RandomGenerator make(long seed) {
    return RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
  }

  static String hex(long v) { return String.format("%016x", v); }

  public static void main(String[] args) throws Exception {
    StringBuilder out = new StringBuilder();
    out.append("{\n\"jdk\": ").append(q(System.getProperty("java.vendor") + " " + System.getProperty("java.runtime.version")));
    out.append(",\n\"generator\": \"L64X128MixRandom\",\n\"bounds\": [");
    for (int i = 0; i < BOUNDS.length; i++) out.append(i == 0 ? "" : ", ").append("[" + BOUNDS[i][0] + ", " + BOUNDS[i][1] + "]");
    out.append("],\n\"first\": [");
    for (int s = 0; s < SEEDS.length; s++) {
      out.append(s == 0 ? "\n" : ",\n").append("{\"seed\": \"").append(SEEDS[s]).append("\"");
      for (String stream : STREAMS) {
        RandomGenerator r = make(SEEDS[s]);
        out.append(", \"").append(stream).append("\": [");
        int n = stream.equals("nextIntBounded") ? BOUNDS.length * 2 : FIRST;
        for (int i = 0; i < n; i++) {
          long v = draw(stream, r, i);
          out.append(i == 0 ? "" : ", ");
          if (stream.equals("nextInt") || stream.equals("nextIntBounded")) out.append(v); else out.append(q(hex(v)));
        }
        out.append("]");
      }
      // One generator, methods interleaved as the engine interleaves them.
      RandomGenerator r = make(SEEDS[s]);
      out.append(", \"mixed\": [");
      for (int i = 0; i < STREAMS.length * 4; i++) {
        long v = draw(STREAMS[i % STREAMS.length], r, i / STREAMS.length);
        out.append(i == 0 ? "" : ", ").append(q(hex(v)));
      }
      out.append("]}");
    }
    out.append("],\n\"runLength\": ").append(RUN).append(",\n\"sha256\": [");
    for (int s = 0; s < HASH_SEEDS.length; s++) {
      out.append(s == 0 ? "\n" : ",\n").append("{\"seed\": \"").append(HASH_SEEDS[s]).append("\"");
      for (String stream : STREAMS) {
        RandomGenerator r = make(HASH_SEEDS[s]);
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        ByteBuffer buf = ByteBuffer.allocate(8);
        for (int i = 0; i < RUN; i++) { buf.clear(); buf.putLong(draw(stream, r, i)); md.update(buf.array()); }
        out.append(", \"").append(stream).append("\": ").append(q(HexFormat.of().formatHex(md.digest())));
      }
      out.append("}");
    }
    out.append("],\n\"doubleToString\": [");
    List<Double> values = doubleCases();
    for (int i = 0; i < values.size(); i++) {
      double d = values.get(i);
      out.append(i == 0 ? "\n" : ",\n").append("[").append(q(hex(Double.doubleToRawLongBits(d)))).append(", ").append(q(Double.toString(d))).append("]");
    }
    out.append("\n]\n}\n");
    System.out.print(out);
  }

  // Edges of both layouts (plain in [1e-3, 1e7), E-notation outside), subnormals, the two-digit
  // subnormal rule, powers of ten and two with neighbours, then seeded random bit patterns.
  static List<Double> doubleCases() {
    List<Double> v = new ArrayList<>();
    double[] fixed = {0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE,
      Double.MIN_NORMAL, Double.MAX_VALUE, 1e-3, 1e7, 1e23, 2e23, 1e22, 9007199254740993.0, 2134, 15, 0.1, 0.2, 0.3,
      0.1 + 0.2, 1.0 / 3, Math.PI, Math.E, -1.30005675913573402e18, 123456.789, 6.02214076e23, 5e-324, 4.9e-324};
    for (double d : fixed) v.add(d);
    for (int k = 1; k <= 40; k++) v.add(k * Double.MIN_VALUE);
    for (double d : new double[] {1e-3, 1e7, Double.MIN_NORMAL, 1e-4, 1e6, 1.0, 1e21, 1e-7}) {
      v.add(Math.nextDown(d)); v.add(Math.nextUp(d)); v.add(-Math.nextDown(d)); v.add(-d);
    }
    for (int e = -325; e <= 308; e++) { double d = Double.parseDouble("1e" + e); v.add(d); v.add(Math.nextUp(d)); v.add(Math.nextDown(d)); }
    for (int e = -1074; e <= 1023; e += 7) v.add(Math.scalb(1.0, e));
    SplittableRandom rnd = new SplittableRandom(20261201L);
    for (int i = 0; i < 1500; i++) {
      double d = Double.longBitsToDouble(rnd.nextLong());
      if (!Double.isNaN(d)) v.add(d);
    }
    // Values as the engine prints them: uniform and scaled draws in and around the plain range.
    for (int i = 0; i < 1000; i++) v.add((rnd.nextDouble() - 0.5) * Math.pow(10, rnd.nextInt(-6, 10)));
    return v;
  }

  static String q(String s) { return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\""; }
}
