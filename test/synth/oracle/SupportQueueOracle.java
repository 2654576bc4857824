// Oracle for examples/synth/support-queue.xml: the same model written out by hand in Java on the
// JDK's own L64X128MixRandom, with the sampling recipes of synth-spec §3.3 and fdlibm (StrictMath).
// Prints CSV rows without a header: args = seed count.
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

public class SupportQueueOracle {
  static double[] cumulative(double... w) {
    double total = 0;
    for (double v : w) total += v;
    double[] cum = new double[w.length];
    double acc = 0;
    for (int i = 0; i < w.length; i++) { acc += w[i] / total; cum[i] = acc; }
    return cum;
  }

  static int pick(double[] cum, double u) {
    for (int i = 0; i < cum.length - 1; i++) if (u < cum[i]) return i;
    return cum.length - 1;
  }

  public static void main(String[] args) {
    long seed = Long.parseLong(args[0]);
    int count = Integer.parseInt(args[1]);
    RandomGenerator r = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
    double[] channel = cumulative(0.6, 0.3, 0.1);
    double[] priority = cumulative(1, 3);
    double expNeg4 = StrictMath.exp(-4.0);
    StringBuilder out = new StringBuilder();
    for (int row = 0; row < count; row++) {
      int ch = pick(channel, r.nextDouble());
      int pr = pick(priority, r.nextDouble()) == 0 ? 1 : 0;
      double wait;
      do { wait = 12 + 8 * r.nextGaussian(); } while (!(wait >= 0 && wait <= 60));
      int k = 0;
      double p = 1;
      do { k++; p *= r.nextDouble(); } while (p > expNeg4);
      double handle = StrictMath.exp(2 + 0.5 * r.nextGaussian());
      double surcharge = 0 + (1 - 0) * r.nextDouble();
      double rounded = Math.round(handle * 10) / 10.0;
      double scaled = handle * (1 + surcharge);
      int escalated = r.nextDouble() < 0.15 ? 1 : 0;
      out.append(ch).append(',').append(pr).append(',').append(wait).append(',').append(k - 1).append(',')
          .append(rounded).append(',').append(scaled).append(',').append(escalated).append('\n');
    }
    System.out.print(out);
  }
}
