from tokensmith.cli import main

main()
