// Oracle for examples/synth/skirmish.xml: the same model written out by hand in Java on the JDK's
// own L64X128MixRandom (recipes of synth-spec §3.3, fdlibm via StrictMath). Only the branch the
// Switch selects draws. Prints CSV rows without a header: args = seed count.
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

public class SkirmishOracle {
  public static void main(String[] args) {
    long seed = Long.parseLong(args[0]);
    int count = Integer.parseInt(args[1]);
    RandomGenerator r = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
    double total = 5.0 + 3.0 + 2.0;
    double c0 = 5.0 / total;
    double c1 = c0 + 3.0 / total;
    double expNeg = StrictMath.exp(-2.5);
    StringBuilder out = new StringBuilder();
    for (int row = 0; row < count; row++) {
      double u = r.nextDouble();
      int action = u < c0 ? 0 : u < c1 ? 1 : 2;
      out.append(action).append(',');
      if (action == 0) {
        long d1 = (long) Math.ceil(0 + (20 - 0) * r.nextDouble());
        long d2 = (long) Math.ceil(0 + (20 - 0) * r.nextDouble());
        out.append((double) (d1 + d2)).append(',').append((double) Math.max(d1, d2));
      } else if (action == 1) {
        double damage = 18 + 9 * r.nextGaussian();
        damage = damage < 0 ? 0.0 : damage > 40 ? 40.0 : damage;
        out.append(damage).append(',').append(3);
      } else {
        for (int i = 0; i < 2; i++) {
          int k = 0;
          double p = 1;
          do { k++; p *= r.nextDouble(); } while (p > expNeg);
          out.append(k - 1).append(i == 0 ? "," : "");
        }
      }
      out.append('\n');
    }
    System.out.print(out);
  }
}
