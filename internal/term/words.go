package term

import "strconv"

// Count is n followed by the word that agrees with it: "1 line", "2 lines".
func Count[N ~int | ~int64](n N, one, many string) string {
	return strconv.FormatInt(int64(n), 10) + " " + Pick(n, one, many)
}

// Pick is the word (or verb) that agrees with n: Pick(1, "fails", "fail").
func Pick[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
