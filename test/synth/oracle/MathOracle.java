// Oracle for the synth math check: fdlibm results (StrictMath) for inputs drawn from the JDK's
// L64X128MixRandom, written as big-endian IEEE bits, one record per input: exp, log, pow, sin, cos,
// sqrt, log1p, acos. args = seed count path.
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

public class MathOracle {
  public static void main(String[] args) throws IOException {
    RandomGenerator r = RandomGeneratorFactory.of("L64X128MixRandom").create(Long.parseLong(args[0]));
    int count = Integer.parseInt(args[1]);
    try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(args[2]), 1 << 16))) {
      for (int i = 0; i < count; i++) {
        double a = r.nextDouble();
        double b = r.nextDouble();
        double x = 40 * a - 20;      // exp, sin, cos argument
        double y = 1000 * b;          // log, sqrt, pow base
        double e = 8 * a - 4;         // pow exponent
        out.writeLong(Double.doubleToRawLongBits(StrictMath.exp(x)));
        out.writeLong(Double.doubleToRawLongBits(StrictMath.log(y)));
        out.writeLong(Double.doubleToRawLongBits(StrictMath.pow(y, e)));
        out.writeLong(Double.doubleToRawLongBits(StrictMath.sin(x)));
        out.writeLong(Double.doubleToRawLongBits(StrictMath.cos(x)));
        out.writeLong(Double.doubleToRawLongBits(StrictMath.sqrt(y)));
        out.writeLong(Double.doubleToRawLongBits(StrictMath.log1p(-a)));
        out.writeLong(Double.doubleToRawLongBits(StrictMath.acos(2 * b - 1)));
      }
    }
  }
}
