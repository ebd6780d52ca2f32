/* Returns RESULT (x86-64), preprocessed. */
	.text
	.globl seven
	.type seven, @function
seven:
	movl $RESULT, %eax
	ret
	.section .note.GNU-stack,"",@progbits
