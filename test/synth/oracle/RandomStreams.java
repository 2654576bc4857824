// Oracle for the synth RNG tests: writes the JDK's own L64X128MixRandom streams for one seed as
// big-endian 8-byte records, one file per stream, each stream from a fresh generator.
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

public class RandomStreams {
  // Bounds cycle through power-of-two, small, large and wider-than-int ranges.
  static final int[][] BOUNDS = {
    {1, 7}, {0, 256}, {0, 1000}, {-50, 50}, {0, 1_000_000_007}, {Integer.MIN_VALUE + 5, Integer.MAX_VALUE - 7}, {0, 60}, {200, 1000}
  };

  public static void main(String[] args) throws IOException {
    long seed = Long.parseLong(args[0]);
    int count = Integer.parseInt(args[1]);
    String prefix = args[2];
    RandomGeneratorFactory<RandomGenerator> factory = RandomGeneratorFactory.of("L64X128MixRandom");
    try (DataOutputStream out = open(prefix + "long.bin")) {
      RandomGenerator r = factory.create(seed);
      for (int i = 0; i < count; i++) out.writeLong(r.nextLong());
    }
    try (DataOutputStream out = open(prefix + "double.bin")) {
      RandomGenerator r = factory.create(seed);
      for (int i = 0; i < count; i++) out.writeLong(Double.doubleToRawLongBits(r.nextDouble()));
    }
    try (DataOutputStream out = open(prefix + "int.bin")) {
      RandomGenerator r = factory.create(seed);
      for (int i = 0; i < count; i++) {
        int[] b = BOUNDS[i % BOUNDS.length];
        out.writeLong(r.nextInt(b[0], b[1]));
      }
    }
    try (DataOutputStream out = open(prefix + "gaussian.bin")) {
      RandomGenerator r = factory.create(seed);
      for (int i = 0; i < count; i++) out.writeLong(Double.doubleToRawLongBits(r.nextGaussian()));
    }
    try (DataOutputStream out = open(prefix + "exponential.bin")) {
      RandomGenerator r = factory.create(seed);
      for (int i = 0; i < count; i++) out.writeLong(Double.doubleToRawLongBits(r.nextExponential()));
    }
  }

  private static DataOutputStream open(String path) throws IOException {
    return new DataOutputStream(new BufferedOutputStream(new FileOutputStream(path), 1 << 16));
  }
}
