/* Broken on purpose (arena check's tests): does not compile. */
int main(void) { return undeclared_variable; }
