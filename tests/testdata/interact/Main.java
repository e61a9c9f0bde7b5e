// search.c in Java: a BufferedReader, and System.out flushed each guess.
import java.io.*;

public class Main {
	public static void main(String[] args) throws IOException {
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
		String first = in.readLine();
		if (first == null) return;
		long lo = 1, hi = Long.parseLong(first.trim());
		while (lo <= hi) {
			long mid = lo + (hi - lo) / 2;
			System.out.println(mid);
			System.out.flush();
			String reply = in.readLine();
			if (reply == null || reply.equals("correct")) return;
			if (reply.equals("higher")) lo = mid + 1; else hi = mid - 1;
		}
	}
}
