// Prints the JDK's ziggurat constants (RandomSupport.DoubleZigguratTables) as raw bit patterns, one
// "name value value ..." line per table, so the port's tables can be checked against the JDK.
import java.lang.reflect.Array;
import java.lang.reflect.Field;

public class ZigguratTablesDump {
  public static void main(String[] args) throws Exception {
    Class<?> tables = Class.forName("jdk.internal.util.random.RandomSupport$DoubleZigguratTables");
    StringBuilder out = new StringBuilder();
    for (Field field : tables.getDeclaredFields()) {
      field.setAccessible(true);
      Object value = field.get(null);
      out.append(field.getName());
      if (value.getClass().isArray()) {
        for (int i = 0; i < Array.getLength(value); i++) out.append(' ').append(bits(Array.get(value, i)));
      } else {
        out.append(' ').append(bits(value));
      }
      out.append('\n');
    }
    System.out.print(out);
  }

  // doubles as their IEEE bits, integers as signed decimal; all in hex for doubles and longs.
  private static String bits(Object v) {
    if (v instanceof Double d) return "d" + Long.toHexString(Double.doubleToRawLongBits(d));
    if (v instanceof Long l) return "l" + Long.toHexString(l);
    return "i" + ((Number) v).longValue();
  }
}
